import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One `garaged` process on the simulated line, and the files it uses.
final class GaragedDaemon {
    let process: ChildProcess
    let pinsPath: String
    let socketPath: String
    let tracePath: String

    init(process: ChildProcess, pinsPath: String, socketPath: String, tracePath: String) {
        self.process = process
        self.pinsPath = pinsPath
        self.socketPath = socketPath
        self.tracePath = tracePath
    }

    var pid: pid_t { process.pid }
    var log: String { process.stderr }

    /// A fresh connection to the daemon. A non-blocking connect fails with EAGAIN while the
    /// listen backlog is full (many connections at once, faster than the daemon accepts), so
    /// that is retried for a while; any other failure is thrown at once.
    func connect() throws -> SocketClient {
        var lastError: Error?
        var client: SocketClient?
        _ = eventually(within: .seconds(5)) {
            do {
                client = try SocketClient(path: socketPath)
                return true
            } catch let e as HarnessError where e.errno == EAGAIN {
                lastError = e
                return false
            } catch {
                lastError = error
                return true
            }
        }
        if let client { return client }
        throw lastError ?? HarnessError("connect \(socketPath): failed")
    }

    /// One request on a fresh connection, its single-record answer.
    func ask(_ text: String) throws -> String { try connect().ask(text) }

    /// One request on a fresh connection: its single-record answer, and the words the local
    /// socket sent before it (why it was refused or did nothing), nil when none came.
    func explained(_ text: String) throws -> (reason: String?, record: String) { try connect().explained(text) }

    func trace() throws -> [TraceEntry] { try readTrace(tracePath) }

    /// SIGTERM and wait for the exit (the clean shutdown every test ends with, so the final trace
    /// can be compared whole).
    func stop(timeout: Duration = .seconds(3)) -> Termination? {
        process.signal(SIGTERM)
        return process.waitForExit(timeout: timeout)
    }
}
