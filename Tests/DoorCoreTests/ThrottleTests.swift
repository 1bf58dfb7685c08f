import XCTest
@testable import DoorCore

final class ThrottleTests: XCTestCase {
    private let hour = 3_600_000  // ms

    func testFiveFreeAttemptsThenDoublingDelaysUpToAnHour() {
        var th = Throttle()
        for i in 0..<4 { XCTAssertNil(th.recordFailure(.remote, at: t(i))) }
        XCTAssertNil(th.remainingLock(.remote, at: t(4)))
        XCTAssertEqual(th.recordFailure(.remote, at: t(4)), .seconds(1))
        XCTAssertEqual(th.remainingLock(.remote, at: t(4)), .seconds(1))
        XCTAssertEqual(th.remainingLock(.remote, at: t(504)), .milliseconds(500))
        XCTAssertNil(th.remainingLock(.remote, at: t(1004)))
        var delays: [Duration] = []
        var now = 1004
        for _ in 0..<16 {
            let d = th.recordFailure(.remote, at: t(now))!
            delays.append(d)
            now += Int(d.nanoseconds / 1_000_000)
        }
        XCTAssertEqual(delays.prefix(13).map { $0.secondsRoundedUp }, [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3600, 3600])
        XCTAssertEqual(delays.last, .seconds(3600))
    }

    func testOnlyTimeForgivesOneWrongPINPerQuietHour() {
        var th = Throttle()
        for i in 0..<4 { th.recordFailure(.remote, at: t(i)) }
        XCTAssertEqual(th.budget(.remote, at: t(hour + 2)).failures, 4, "not quite an hour since the last")
        XCTAssertEqual(th.budget(.remote, at: t(hour + 3)).failures, 3, "one forgiven after an hour without a wrong PIN")
        XCTAssertEqual(th.budget(.remote, at: t(3 * hour + 3)).failures, 1)
        XCTAssertEqual(th.budget(.remote, at: t(10 * hour)).failures, 0)
        // A wrong PIN restarts the quiet hour: 30 minutes later nothing more is forgiven.
        var again = Throttle()
        for i in 0..<3 { again.recordFailure(.remote, at: t(i)) }
        again.recordFailure(.remote, at: t(hour - 1))
        XCTAssertEqual(again.budget(.remote, at: t(hour + hour / 2)).failures, 4)
    }

    /// The status changes with time alone when a lock ends or a wrong PIN is forgiven: the loop
    /// wakes then (it no longer looks every 500 ms), so `nextChange` names the earliest.
    func testTheNextChangeIsALockEndingOrAWrongPINForgiven() {
        var th = Throttle()
        XCTAssertNil(th.nextChange(after: t(0)), "nothing counted: nothing changes")
        th.recordFailure(.local, at: t(0))
        XCTAssertEqual(th.nextChange(after: t(10)), t(hour), "the wrong PIN forgiven an hour on")
        for i in 0..<5 { th.recordFailure(.remote, at: t(i)) }
        XCTAssertEqual(th.nextChange(after: t(4)), t(1004), "the remote lock ends first")
        XCTAssertEqual(th.nextChange(after: t(1004)), t(hour), "then the local wrong PIN is forgiven")
        XCTAssertEqual(th.nextChange(after: t(hour)), t(hour + 4), "then a remote one")
        th.clear()
        XCTAssertNil(th.nextChange(after: t(hour)))
    }

    func testChannelsHaveTheirOwnBudgetsAndTheOwnerCanClearThem() {
        var th = Throttle()
        for i in 0..<6 { th.recordFailure(.remote, at: t(i)) }
        XCTAssertNotNil(th.remainingLock(.remote, at: t(10)))
        XCTAssertNil(th.remainingLock(.local, at: t(10)), "a stranger on the radio never locks out the shell")
        XCTAssertEqual(th.budget(.local, at: t(10)).failures, 0)
        for i in 0..<5 { th.recordFailure(.local, at: t(20 + i)) }
        th.clear(.remote)
        XCTAssertNil(th.remainingLock(.remote, at: t(30)))
        XCTAssertEqual(th.budget(.remote, at: t(30)).failures, 0)
        XCTAssertNotNil(th.remainingLock(.local, at: t(30)), "clearing one channel leaves the other")
        th.clear()
        for channel in Throttle.Channel.allCases {
            XCTAssertNil(th.remainingLock(channel, at: t(30)), "\(channel) unlocked")
            XCTAssertEqual(th.budget(channel, at: t(30)).failures, 0, "\(channel) forgiven")
        }
    }

    func testSecondsRoundUpSoAShortLockNeverReadsZero() {
        XCTAssertEqual(Duration.milliseconds(1).secondsRoundedUp, 1)
        XCTAssertEqual(Duration.milliseconds(1000).secondsRoundedUp, 1)
        XCTAssertEqual(Duration.milliseconds(1001).secondsRoundedUp, 2)
    }
}

/// How fast can a stranger within radio range guess? The threat model promises that a given
/// 5-digit PIN takes years on average. Each strategy runs for a year of injected time through
/// the controller (the real judging path), and the guesses judged in that year are counted.
final class GuessingOverAYearTests: XCTestCase {
    private let year = 365 * 24 * 3_600_000  // ms
    private let remote = RequestSource("bluetooth guesser", channel: .remote)
    /// What any strategy may achieve in a year: one guess an hour, plus the first burst.
    private let boundPerYear = 365 * 24 + 32

    /// A controller whose table holds the master and the guest PIN the guesser knows.
    private func controller() throws -> Controller {
        var c = Controller(table: try PinTable(master: pin("27182"), capacity: 16),
                           door: Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(12), autoClose: nil)),
                           store: MemoryStore())
        _ = c.judgeAndAccount(Array("27182A11111".utf8), from: RequestSource("local uid=0", channel: nil, isLocal: true), at: t(0))
        return c
    }

    /// Runs `strategy` (which asks at `now` and says when it will ask next) for a year; returns
    /// how many wrong guesses were judged (answered ERR PIN rather than ERR LOCKED).
    private func judgedGuesses(_ strategy: (inout Controller, Int) -> (judged: Bool, next: Int)) throws -> Int {
        var c = try controller()
        var now = 1000, judged = 0
        while now < year {
            let (wasJudged, next) = strategy(&c, now)
            if wasJudged { judged += 1 }
            XCTAssertGreaterThan(next, now)
            now = next
        }
        return judged
    }

    /// One guess; judged or refused, and how long the channel is now locked (ms).
    private func guess(_ c: inout Controller, _ n: Int, at ms: Int) -> (judged: Bool, lockedMs: Int) {
        let candidate = String(format5: n)
        let outcome = c.judgeAndAccount(Array("\(candidate)P".utf8), from: remote, at: t(ms))
        let locked = c.throttle.remainingLock(.remote, at: t(ms)).map { Int($0.nanoseconds / 1_000_000) } ?? 0
        return (outcome.result == .error(.pin), locked)
    }

    func testGuessingAsFastAsTheLockAllowsGetsOneGuessAnHour() throws {
        var n = 0
        let judged = try judgedGuesses { c, now in
            n += 1
            let (j, locked) = guess(&c, n, at: now)
            return (j, now + max(1, locked))
        }
        report("as fast as allowed", judged)
        XCTAssertLessThanOrEqual(judged, boundPerYear)
    }

    /// The bypass the review found: four guesses, then the known guest PIN, repeat. Before,
    /// the success started the count over and 19,999 guesses went through in 1.5 s.
    func testAKnownPINBetweenGuessesGivesNoSpeedUp() throws {
        var n = 0
        let judged = try judgedGuesses { c, now in
            n += 1
            let (j, locked) = guess(&c, n, at: now)
            if n % 4 == 0 { _ = c.judgeAndAccount(Array("11111S".utf8), from: remote, at: t(now)) }
            return (j, now + max(1, locked))
        }
        report("known PIN between guesses", judged)
        XCTAssertLessThanOrEqual(judged, boundPerYear)
    }

    /// Bursts of free guesses with rests in between: resting only earns back one an hour.
    func testBurstsAndRestsAreNoFaster() throws {
        for restHours in [1, 3, 8, 24] {
            var n = 0
            let judged = try judgedGuesses { c, now in
                n += 1
                let (j, locked) = guess(&c, n, at: now)
                return (j, locked > 0 ? now + restHours * 3_600_000 : now + 1)
            }
            report("bursts, resting \(restHours) h", judged)
            XCTAssertLessThanOrEqual(judged, boundPerYear, "resting \(restHours) h")
        }
    }

    private func report(_ strategy: String, _ judged: Int) {
        let years = 50_000.0 / Double(max(judged, 1))
        print("guessing over a year (\(strategy)): \(judged) guesses judged; a given 5-digit PIN (50,000 expected guesses) would take \(Int(years * 10) / 10).\(Int(years * 10) % 10) years")
    }
}

private extension String {
    /// `n` as five digits.
    init(format5 n: Int) {
        let s = String(n % 100_000)
        self = String(repeating: "0", count: 5 - s.count) + s
    }
}
