import CLinux
@testable import GaragedKit
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `ConnectTimes`: a Unix socket file's access time, set back before the loop sleeps, dates the
/// connections that reach it during the sleep by the first connect since; anything it cannot
/// vouch for (a connect before the socket was seen empty, times set by someone else) is left
/// to the loop's looks.
final class ConnectTimesTests: XCTestCase {
    /// A listening Unix socket in a temporary folder, and its connect times.
    private struct Socket {
        let dir: TempFolder
        let fd: Int32
        let times: ConnectTimes
        var path: String { dir.file("t.sock") }
    }

    private func socket() throws -> Socket {
        let dir = try TempFolder()
        let fd = try LocalSocket.listen(path: dir.file("t.sock"), type: Int32(SOCK_SEQPACKET.rawValue))
        guard let times = ConnectTimes(path: dir.file("t.sock")) else {
            close(fd)
            throw XCTSkip("\(dir.path) is not on a relatime mount: connect times are not kept there")
        }
        return Socket(dir: dir, fd: fd, times: times)
    }

    /// Arms on a quiet turn and waits until the arm has settled, then has the loop's look find the socket empty.
    private func armAndLook(_ s: Socket) -> Int64? {
        guard case .lookAt(let ready) = s.times.need(at: PacketSocket.realtimeNow(), quiet: true) else { return nil }
        waitUntil("the arm to settle") { PacketSocket.realtimeNow() >= ready }
        s.times.sawEmpty(at: PacketSocket.realtimeNow())
        return ready
    }

    private func accept(_ s: Socket) -> Int32 {
        var fd: Int32 = -1
        waitUntil("a connection to accept") { fd = clinux_accept_nonblocking(s.fd); return fd >= 0 }
        return fd
    }

    /// Busy, it asks for looks; quiet, it arms and asks for one look once settled; seen empty then,
    /// the loop may sleep, and the first connect dates every connection since (a second one does
    /// not move it); accepting renews it.
    func testTheFirstConnectSinceTheSocketWasSeenEmptyDatesTheConnections() throws {
        let s = try socket()
        defer { close(s.fd) }
        XCTAssertEqual(s.times.need(at: PacketSocket.realtimeNow(), quiet: false), .looks, "a busy loop's looks date them")
        XCTAssertNotNil(armAndLook(s))
        XCTAssertEqual(s.times.need(at: PacketSocket.realtimeNow(), quiet: true), .nothing, "armed and seen empty: sleep")
        XCTAssertNil(s.times.connectedAfter(), "nobody connected yet")

        let before = PacketSocket.realtimeNow()
        let first = try PacketClient(path: s.path)
        let after = PacketSocket.realtimeNow()
        let stamp = try XCTUnwrap(s.times.connectedAfter())
        XCTAssertLessThanOrEqual(stamp, after, "no later than the connect")
        XCTAssertGreaterThan(stamp, before - 50_000_000, "the kernel's coarse clock, a tick or so behind")
        let second = try PacketClient(path: s.path)
        XCTAssertEqual(s.times.connectedAfter(), stamp, "a second connect leaves the first one's time")

        let a = accept(s), b = accept(s)
        XCTAssertNil(s.times.took(2))
        XCTAssertEqual(s.times.need(at: PacketSocket.realtimeNow(), quiet: false), .looks, "set back again at the next quiet turn")
        for fd in [a, b] { close(fd) }
        _ = (first, second)
    }

    /// A connection made after the arm but before a look found the socket empty is not dated by
    /// it: the look found it waiting, so the state stays armed.
    func testAConnectionBeforeTheSocketWasSeenEmptyIsNotDated() throws {
        let s = try socket()
        defer { close(s.fd) }
        guard case .lookAt(let ready) = s.times.need(at: PacketSocket.realtimeNow(), quiet: true) else { return XCTFail("not armed") }
        let early = try PacketClient(path: s.path)
        waitUntil("the arm to settle") { PacketSocket.realtimeNow() >= ready }
        // The loop's look finds the listener readable, so it says nothing of it being empty.
        XCTAssertEqual(s.times.need(at: PacketSocket.realtimeNow(), quiet: true), .lookAt(ready))
        XCTAssertNil(s.times.connectedAfter(), "the loop's looks date it")
        close(accept(s))
        XCTAssertNil(s.times.took(1))
        _ = early
    }

    /// An arm is renewed after an hour (the kernel moves an access time a day old again) and
    /// when the clock was set back past it: the loop looks meanwhile, and arms again when quiet.
    func testAnArmIsRenewedAfterAnHourOrWhenTheClockWentBack() throws {
        let s = try socket()
        defer { close(s.fd) }
        let ready = try XCTUnwrap(armAndLook(s))
        XCTAssertEqual(s.times.need(at: ready + ConnectTimes.renewAfter / 2, quiet: false), .nothing)
        XCTAssertEqual(s.times.need(at: ready + 2 * ConnectTimes.renewAfter, quiet: false), .looks, "an hour on")
        XCTAssertNotNil(armAndLook(s))
        XCTAssertEqual(s.times.need(at: ready - 60_000_000_000, quiet: false), .looks, "the clock a minute back")
    }

    /// Times set by anyone else (a member of the socket's group may touch it) turn it off for
    /// good: what connects after counts from the loop's looks, and the loop is told why once.
    func testTimesSetBySomeoneElseTurnItOff() throws {
        let s = try socket()
        defer { close(s.fd) }
        XCTAssertNotNil(armAndLook(s))
        XCTAssertEqual(utimensat(AT_FDCWD, s.path, nil, 0), 0, "touch")
        let client = try PacketClient(path: s.path)
        XCTAssertNil(s.times.connectedAfter())
        close(accept(s))
        let problem = try XCTUnwrap(s.times.took(1))
        XCTAssertTrue(problem.contains("changed by someone else"), problem)
        XCTAssertNil(s.times.took(0), "said once")
        XCTAssertEqual(s.times.need(at: PacketSocket.realtimeNow(), quiet: true), .looks)
        _ = client
    }
}
