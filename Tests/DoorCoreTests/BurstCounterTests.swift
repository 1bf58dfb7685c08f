import XCTest
@testable import DoorCore

/// Repeats folded into one report per burst, on an injected clock.
final class BurstCounterTests: XCTestCase {
    func testTheFirstIsReportedAtOnceAndTheRestAsOneCountWhenTheBurstGoesQuiet() {
        var b = BurstCounter<String, Int>(quiet: .seconds(60), span: .seconds(600))
        XCTAssertTrue(b.note("remote", 1, at: t(0)))
        for i in 1...143_863 { XCTAssertFalse(b.note("remote", i, at: t(i / 20_000))) }
        XCTAssertTrue(b.note("local uid=1000", 1, at: t(5)), "another key is a burst of its own")
        XCTAssertEqual(b.due(at: t(59_000)).count, 0, "not quiet yet")
        XCTAssertEqual(b.nextDeadline, t(60_005))
        let reports = b.due(at: t(60_008))
        XCTAssertEqual(reports.count, 1, "a burst of one ends without a report")
        XCTAssertEqual(reports.first?.key, "remote")
        XCTAssertEqual(reports.first?.first, 1)
        XCTAssertEqual(reports.first?.folded, 143_863)
        XCTAssertEqual(reports.first?.from, t(0))
        XCTAssertEqual(reports.first?.to, t(7))
        XCTAssertNil(b.nextDeadline)
        XCTAssertTrue(b.note("remote", 2, at: t(61_000)), "after the burst ended, the next one is reported in full")
    }

    func testDueIfAnyAnswersWhatDueWouldAndWalksNothingBeforeTheDeadline() {
        var b = BurstCounter<String, Int>(quiet: .seconds(60), span: .seconds(600))
        XCTAssertEqual(b.dueIfAny(at: t(0)).count, 0, "nothing open")
        XCTAssertTrue(b.note("k", 1, at: t(0)))
        XCTAssertFalse(b.note("k", 2, at: t(1_000)))
        XCTAssertEqual(b.dueIfAny(at: t(60_999)).count, 0, "quiet for less than a minute")
        XCTAssertEqual(b.nextDeadline, t(61_000), "and the burst is still open")
        let reports = b.dueIfAny(at: t(61_000))
        XCTAssertEqual(reports.map(\.folded), [1])
        XCTAssertNil(b.nextDeadline, "the burst ended with its report")
    }

    func testABurstThatGoesOnIsReportedEverySpan() {
        var b = BurstCounter<String, Int>(quiet: .seconds(60), span: .seconds(600))
        XCTAssertTrue(b.note("k", 0, at: t(0)))
        var reports: [Int] = []
        for s in 1...1_800 {
            XCTAssertFalse(b.note("k", s, at: t(s * 1000)))
            reports += b.due(at: t(s * 1000)).map(\.folded)
        }
        XCTAssertEqual(reports, [600, 600, 600], "one count per 10 minutes while it lasts")
        XCTAssertFalse(b.note("k", 0, at: t(1_800_500)))
        XCTAssertEqual(b.flush().map(\.folded), [1], "and what is left at shutdown")
    }
}

final class ErrorBudgetTests: XCTestCase {
    func testGarbageFasterThanTheRefillRunsOutAndDiscoveryPacedOneInFiveSecondsNever() {
        var fast = ErrorBudget(capacity: 16, refill: .seconds(5))
        XCTAssertEqual((0..<16).map { fast.charge(at: t($0 * 10)) }, Array(repeating: false, count: 15) + [true])
        var paced = ErrorBudget(capacity: 16, refill: .seconds(5))
        for i in 0..<10_000 { XCTAssertFalse(paced.charge(at: t(i * 5_000)), "charge \(i)") }
        var bursts = ErrorBudget(capacity: 16, refill: .seconds(5))
        for round in 0..<100 {
            // 8 Attribute-Not-Found-like errors per discovery, one discovery a minute.
            for i in 0..<8 { XCTAssertFalse(bursts.charge(at: t(round * 60_000 + i))) }
        }
    }

    /// A refusal can say how long to wait: until the next unit comes back, and no longer.
    func testTheWaitIsUntilTheNextUnitComesBack() {
        var b = ErrorBudget(capacity: 2, refill: .seconds(20))
        XCTAssertEqual(b.untilNextUnit(at: t(0)), .zero)
        XCTAssertTrue(b.spend(at: t(0)))
        XCTAssertEqual(b.untilNextUnit(at: t(1_000)), .zero, "one is left")
        XCTAssertTrue(b.spend(at: t(1_000)))
        XCTAssertEqual(b.untilNextUnit(at: t(5_000)), .seconds(15))
        XCTAssertFalse(b.spend(at: t(19_999)))
        XCTAssertEqual(b.untilNextUnit(at: t(20_000)), .zero)
        XCTAssertTrue(b.spend(at: t(20_000)))
        XCTAssertEqual(b.untilNextUnit(at: t(30_000)), .seconds(10))
        var rates = RequestRates()
        for _ in 0..<RequestRates.remoteLocks.capacity { XCTAssertTrue(rates.spend(.remotes, for: "mqtt", at: t(0))) }
        XCTAssertFalse(rates.allows(.remotes, for: "mqtt", at: t(1_000)))
        XCTAssertTrue(rates.allows(.light, for: "mqtt", at: t(1_000)), "each kind has its own allowance")
        XCTAssertEqual(rates.wait(.remotes, for: "mqtt", at: t(1_000)), RequestRates.remoteLocks.refill - .seconds(1))
        XCTAssertEqual(rates.wait(.remotes, for: "homekit", at: t(1_000)), .zero, "and each channel")
    }
}

final class EventLogTests: XCTestCase {
    private func r(_ ms: Int64, _ kind: EventRecord.Kind, _ detail: String? = nil) -> EventRecord {
        EventRecord(time: ms, kind: kind, source: "bluetooth x", detail: detail)
    }

    func testWhatMattersIsKeptApartFromAttemptsAndShownMergedByTime() {
        XCTAssertEqual(r(0, .open, "pressed").importance, .kept)
        XCTAssertEqual(r(0, .open, "OK").importance, .attempt, "an open that pressed nothing can be repeated at will")
        XCTAssertEqual(r(0, .add, "OK 3").importance, .kept)
        XCTAssertEqual(r(0, .add, "ERR DUP").importance, .attempt)
        for kind in [EventRecord.Kind.start, .stop, .autoClose, .unlock] { XCTAssertEqual(r(0, kind).importance, .kept) }
        for kind in [EventRecord.Kind.wrongPIN, .lockout, .stale] { XCTAssertEqual(r(0, kind).importance, .attempt) }
        // What any stored PIN or a chattering switch can repeat at will (B4, W8).
        XCTAssertEqual(r(0, .hold, "OK: 1 min").importance, .attempt)
        for kind in [EventRecord.Kind.warning, .fault, .leftOpen, .door, .light] {
            XCTAssertEqual(r(0, kind, "OK").importance, .attempt, "\(kind)")
        }

        var log = EventLog(kept: EventHistory(maxBytesPerFile: 600), attempts: EventHistory(maxBytesPerFile: 600))
        log.append(r(10, .open, "pressed"))
        for i in 0..<10_000 { log.append(r(20 + Int64(i), .wrongPIN, "open")) }
        log.append(r(50_000, .close, "pressed"))
        let all = log.since(nil)
        XCTAssertEqual(all.filter { $0.importance == .kept }.map(\.time), [10, 50_000],
                       "10,000 wrong PINs rotate only their own part")
        XCTAssertEqual(all.map(\.time), all.map(\.time).sorted())
        XCTAssertEqual(log.since(50_000).map(\.kind), [.close])
    }

    func testASummaryRoundTripsWithItsCount() {
        var s = r(5, .wrongPIN, "open")
        s.count = 143_863
        s.spanSeconds = 8
        XCTAssertEqual(EventRecord(json: s.json), s)
        XCTAssertEqual(EventCodec.decode(line: EventCodec.encode(s).dropLast()), s)
    }
}
