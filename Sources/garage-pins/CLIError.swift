import ArgumentParser
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// How garage-pins fails, each with its documented exit code: 1 refused by the daemon (its
/// reason printed), 2 usage, 3 daemon unreachable; offline file problems are 1 as well.
enum CLIError: Error, CustomStringConvertible {
    case refused(String)
    case usage(String)
    case unreachable(String)
    case file(String)

    var description: String {
        switch self {
        case .refused(let s), .usage(let s), .unreachable(let s), .file(let s): return s
        }
    }

    var exitCode: Int32 {
        switch self {
        case .refused, .file: return 1
        case .usage: return 2
        case .unreachable: return 3
        }
    }
}

extension CLIError {
    /// Explains a daemon's ERR record in words: garaged's own `reason` for it when it gave one
    /// (what was wrong this time, and what to do), else what the code means.
    static func explain(_ record: String, reason: String? = nil) -> String {
        if let reason { return "garaged refused: \(reason) (\(record))" }
        guard let (code, seconds) = Reply.error(in: record) else { return "garaged refused: \(record)" }
        var why = code.meaning
        if code == .locked { why += "; try again in \(seconds.map(String.init) ?? "a few") s, or clear it with `garage-pins unlock` (master PIN)" }
        return "garaged refused: \(why) (\(record))"
    }
}

/// Runs a command body and turns CLIError into its message on stderr and its exit code.
func runReportingErrors(_ body: () throws(CLIError) -> Void) throws {
    do {
        try body()
    } catch {
        var stderr = StandardError()
        print("garage-pins: \(error.description)", to: &stderr)
        throw ExitCode(error.exitCode)
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        _ = string.withCString { Glibc.write(2, $0, strlen($0)) }
    }
}
