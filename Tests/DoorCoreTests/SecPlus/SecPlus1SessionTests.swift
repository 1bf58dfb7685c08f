import XCTest
@testable import DoorCore

/// The Security+ 1.0 conversation without a wire: an in-memory opener (`WireOpener`) that echoes
/// garaged's bytes, answers its questions and toggles its door, and a door joined to the session
/// as the daemon joins them (`SecPlus1Rig`), on injected time. The invariant every test checks
/// (`SecPlus1Rig.unsafeToggles`): a toggle that may send the door down is only ever written for a
/// warned permit, with a clear beam, a whole warning after the warning was shown.
final class SecPlus1SessionTests: XCTestCase {
    /// A permit for `action` as a door with an opener issues it: with a wired warning (warned: the
    /// door was not closed) or without one (not warned).
    private func permit(_ action: DoorAction, warned: Bool) -> PressPermit {
        var d = Door(timing: DoorTiming(pulse: .milliseconds(300), travel: .seconds(30), autoClose: nil, warning: warned ? .seconds(5) : nil),
                     sensing: .reported(by: "test"), at: t(0))
        switch action {
        case .open: _ = d.openerReported(.stopped, obstructed: false, at: t(0))
        case .close: _ = d.openerReported(.open, obstructed: false, at: t(0))
        case .stop:
            _ = d.openerReported(.closed, obstructed: false, at: t(0))
            _ = d.openerReported(.opening, obstructed: false, at: t(100))
        }
        let decision = action == .stop ? d.stop(at: t(1_000)) : d.request(open: action == .open, at: t(1_000))
        if let p = decision.events.presses.first { return p }
        d.warningShown(at: t(1_000))
        return d.advance(to: t(6_000)).presses[0]
    }

    /// Where a finished action leaves the door, by the opener's own state.
    private func reached(_ action: DoorAction, _ state: OpenerDoorState) -> Bool {
        switch action {
        case .open: return state == .opening || state == .open
        case .close: return state == .closing || state == .closed
        case .stop: return state == .stopped
        }
    }

    /// How many times the permit ended (pressOver or pressNotSent), and how.
    private func endings(_ rig: SecPlus1Rig, _ permit: PressPermit) -> (over: Int, notSent: Int) {
        var over = 0, notSent = 0
        for event in rig.told {
            if case .pressOver(let p) = event, p == permit { over += 1 }
            if case .pressNotSent(let p, _) = event, p == permit { notSent += 1 }
        }
        return (over, notSent)
    }

    // MARK: Every toggle sequence

    /// From every state the opener can report, for every action, warned or not, with the beam
    /// clear or broken, on each kind of opener: the session only toggles as the permit allows (no
    /// toggle that may send the door down for an unwarned permit or across a broken beam), never
    /// more than three times, each press released, and the permit ends once. On the notes' opener,
    /// a warned permit with a clear beam reaches what it asked; an unwarned one either reaches it
    /// by toggles that go up only, or ends with nothing pressed.
    func testEveryActionFromEveryStateTogglesOnlyAsItsPermitAllows() {
        for kind in WireOpener.Kind.allCases {
            for state in [OpenerDoorState.closed, .opening, .open, .closing, .stopped] {
                for action in DoorAction.allCases {
                    for warned in [true, false] {
                        for obstructed in [false, true] {
                            let rig = SecPlus1Rig(state, kind: kind, ready: false)
                            rig.opener.obstructed = obstructed
                            rig.run(for: .seconds(5))
                            let start = rig.opener.state
                            let p = permit(action, warned: warned)
                            let what = "\(kind) \(action) from \(start), warned \(warned), obstructed \(obstructed)"
                            XCTAssertNil(rig.carryOut(p), what)
                            rig.run(for: .seconds(12))
                            let toggles = rig.opener.written.filter { $0 == SecPlus1Wire.doorPress }.count
                            let releases = rig.opener.written.filter { $0 == SecPlus1Wire.doorRelease }.count
                            XCTAssertEqual(rig.unsafeToggles, [], what)
                            XCTAssertLessThanOrEqual(toggles, 3, what)
                            XCTAssertEqual(toggles, releases, "each press released: \(what)")
                            let end = endings(rig, p)
                            XCTAssertEqual(end.over + end.notSent, 1, "ends once: \(what)")
                            XCTAssertEqual(end.notSent == 1, toggles == 0, "not sent exactly when nothing was pressed: \(what)")
                            XCTAssertFalse(rig.session.releasePending, what)
                            guard kind == .notes else { continue }
                            let needed = SecPlus1Toggle.needsToggle(action, at: start) == true
                            // Only an open from CLOSED or CLOSING gets there by toggles that go up alone.
                            let upOnly = action == .open && (start == .closed || start == .closing)
                            if !needed {
                                XCTAssertEqual(toggles, 0, "already there: \(what)")
                            } else if (warned && !obstructed) || upOnly {
                                XCTAssertTrue(reached(action, rig.opener.state), "\(what): ended \(rig.opener.state)")
                            } else if action == .stop && start == .closing {
                                XCTAssertEqual(rig.opener.state, .opening, "turned up, and not toggled again: \(what)")
                            } else {
                                XCTAssertEqual(toggles, 0, "the first toggle might go down: nothing pressed (\(what))")
                            }
                        }
                    }
                }
            }
        }
    }

    /// The door's own presses, through its gate, from every state and for every request: what
    /// the gate refuses writes nothing; what it allows reaches where it asked, and every toggle
    /// that may send the door down came a whole warning (the light flashing) after the warning
    /// was shown. With one button, an open from STOPPED goes down first: it is warned.
    func testTheDoorsRequestsFromEveryStateAreWarnedWhereAToggleMayGoDown() {
        for state in [OpenerDoorState.closed, .opening, .open, .closing, .stopped] {
            for action in DoorAction.allCases {
                let rig = SecPlus1Rig(state)
                let what = "\(action) from \(state)"
                XCTAssertEqual(rig.door.openerReady, true, what)
                let before = rig.doorEvents.count
                let decision = action == .stop ? rig.stop() : rig.request(open: action == .open)
                rig.run(for: .seconds(14))
                let after = rig.doorEvents.dropFirst(before)
                let toggles = rig.opener.written.filter { $0 == SecPlus1Wire.doorPress }.count
                XCTAssertEqual(rig.unsafeToggles, [], what)
                if decision.refusal != nil {
                    XCTAssertEqual(toggles, 0, "refused by the gate: nothing written (\(what))")
                    continue
                }
                XCTAssertTrue(reached(action, rig.opener.state), "\(what): the opener ended \(rig.opener.state)")
                XCTAssertNil(rig.door.fault, "\(what): \(rig.doorEvents)")
                XCTAssertFalse(after.contains { if case .moved(_, true, _) = $0 { return true } else { return false } },
                               "garaged's own toggles are never someone else's: \(what) \(after)")
                let warned = rig.doorEvents.contains(.pressWarned(action == .open ? .open : action == .close ? .close : .stop))
                XCTAssertEqual(warned, state != .closed, "warned unless from CLOSED: \(what)")
            }
        }
    }

    /// B5 for one button: an open from STOPPED is warned, its first toggle (down) comes a whole
    /// warning after the first flash, and the second (up) as soon as the opener says it closes.
    func testAnOpenFromStoppedIsWarnedThenGoesDownThenUp() {
        let rig = SecPlus1Rig(.stopped)
        let open = rig.request(open: true)
        XCTAssertEqual(open.reply, .ok)
        XCTAssertEqual(open.events.presses, [], "not pressed at once")
        XCTAssertTrue(open.events.contains(.pressWarned(.open)))
        rig.run(for: .seconds(12))
        let presses = rig.opener.wire.filter { $0.who == .garaged && $0.byte == SecPlus1Wire.doorPress }
        XCTAssertEqual(presses.map(\.state), [.stopped, .closing], "down, then up again")
        let firstFlash = rig.opener.wire.first { $0.who == .garaged && $0.byte == SecPlus1Wire.lightPress }
        guard let flash = firstFlash, presses.count == 2 else { return XCTFail("\(rig.opener.written)") }
        XCTAssertGreaterThanOrEqual(presses[0].at - flash.at, .seconds(5), "a whole warning from the first flash")
        XCTAssertLessThan(presses[1].at - presses[0].at, .seconds(3), "the second toggle as soon as CLOSING is confirmed")
        XCTAssertEqual(rig.unsafeToggles, [])
        XCTAssertEqual(rig.opener.state, .opening)
        XCTAssertEqual(rig.door.position, .opening)
        XCTAssertEqual(rig.notes("opener-toggle").count, 2)
    }

    /// An open decided at CLOSED is not warned: if the door is at STOPPED before its toggle (its
    /// remote, meanwhile), the toggle would go down, so nothing is pressed and the door is told.
    func testAnUnwarnedOpenNeverTogglesDownWhenTheDoorMovedMeanwhile() {
        let rig = SecPlus1Rig(.closed, panelEvery: .milliseconds(250))
        rig.opener.remote(at: rig.now)
        rig.run(for: .seconds(3))
        rig.opener.remote(at: rig.now)
        rig.run(for: .seconds(3))
        XCTAssertEqual(rig.opener.state, .stopped)
        let p = permit(.open, warned: false)
        XCTAssertNil(rig.carryOut(p))
        rig.run(for: .seconds(4))
        XCTAssertEqual(rig.opener.written.filter { $0 == SecPlus1Wire.doorPress }, [])
        XCTAssertEqual(endings(rig, p).notSent, 1)
        XCTAssertTrue(rig.notes("press-not-sent").first?.pairs.contains { $0.1.contains("not warned") } ?? false, "\(rig.notes("press-not-sent"))")
        XCTAssertEqual(rig.unsafeToggles, [])
    }

    // MARK: The panel

    /// Standing in, a press asked just after garaged's own question goes out in the next gap on
    /// the wire (its answer, then 50 ms of quiet), not a whole 250 ms slot after the question.
    func testAPressStandingInTakesTheNextGapNotTheNextSlot() {
        let rig = SecPlus1Rig(.closed)
        XCTAssertEqual(rig.session.role, .standingIn)
        func justAsked() -> (at: Instant, byte: UInt8)? {
            rig.opener.wire.last { $0.who == .garaged && $0.at <= rig.now && rig.now - $0.at <= .milliseconds(1) }.map { ($0.at, $0.byte) }
        }
        var steps = 0
        while justAsked() == nil, steps < 1_000 { rig.run(for: .milliseconds(1)); steps += 1 }
        guard let question = justAsked(), SecPlus1Wire.polls.contains(question.byte) else {
            return XCTFail("no question of garaged's heard: \(rig.opener.written.suffix(8))")
        }
        let asked = rig.now
        XCTAssertEqual(rig.request(open: true).reply, .ok)
        rig.run(for: .milliseconds(400))
        guard let i = rig.opener.wire.firstIndex(where: { $0.who == .garaged && $0.byte == SecPlus1Wire.doorPress && $0.at >= asked }) else {
            return XCTFail("no press: \(rig.opener.written)")
        }
        let press = rig.opener.wire[i]
        XCTAssertLessThan(press.at - asked, .milliseconds(200), "a slot after the question would be \(question.at + .milliseconds(250) - asked)")
        XCTAssertGreaterThanOrEqual(press.at - rig.opener.wire[i - 1].at, .milliseconds(50), "the gap rule: 50 ms after the last byte on the wire")
    }

    /// Nothing is written while garaged listens for a panel; then ratgdo's start, and the three
    /// questions in turn, one byte every 250 ms. Its own questions, heard back, are not a panel's.
    func testItListensFirstThenStandsInWithRatgdosStartAndPolls() {
        let rig = SecPlus1Rig(.closed, timing: SecPlus1Session.Timing(), ready: false)
        rig.run(for: .milliseconds(14_900))
        XCTAssertEqual(rig.opener.written, [], "listening")
        XCTAssertEqual(rig.session.role, .listening)
        rig.run(for: .seconds(5))
        let written = rig.opener.wire.filter { $0.who == .garaged }
        XCTAssertEqual(Array(written.map(\.byte).prefix(16)), SecPlus1Wire.standInStart + [0x38, 0x3A, 0x39])
        XCTAssertEqual(written.first.map { $0.at - t(0) }, .seconds(15))
        for (a, b) in zip(written, written.dropFirst()) { XCTAssertGreaterThanOrEqual(b.at - a.at, .milliseconds(250)) }
        XCTAssertEqual(rig.session.role, .standingIn, "its own echo is no panel")
        XCTAssertEqual(rig.notes("opener-standing-in").count, 1)
        XCTAssertEqual(rig.door.position, .closed)
        XCTAssertTrue(rig.door.openerReady)
    }

    /// With a wall panel polling, garaged asks nothing, learns the door from the panel's
    /// exchanges, and writes its buttons only in the gaps: 50 ms after the last byte on the wire,
    /// 200 ms after its own last, within 200 ms of the panel's question, so no byte of its ever
    /// meets one of the panel's or the opener's.
    func testWithAPanelItAsksNothingAndWritesOnlyInTheGaps() {
        let rig = SecPlus1Rig(.closed, panelEvery: .milliseconds(250))
        XCTAssertEqual(rig.session.role, .withPanel)
        XCTAssertTrue(rig.door.openerReady, "learned from the panel's exchanges")
        rig.request(open: true)
        rig.run(for: .seconds(4))
        rig.setLight(true)
        rig.lockRemotes(true)
        rig.run(for: .seconds(8))
        XCTAssertEqual(rig.opener.state, .opening)
        XCTAssertTrue(rig.opener.light)
        XCTAssertFalse(rig.opener.unlocked)
        let wire = rig.opener.wire.sorted { $0.at < $1.at }
        let mine = wire.filter { $0.who == .garaged }
        XCTAssertEqual(Set(mine.map(\.byte)), [0x30, 0x31, 0x32, 0x33, 0x34, 0x35], "buttons only, no question")
        var lastOwn: Instant?
        for byte in mine {
            let others = wire.filter { $0.who != .garaged }
            let before = others.last { $0.at <= byte.at }
            XCTAssertGreaterThanOrEqual(byte.at - (before?.at ?? t(0)), .milliseconds(50), "50 ms after the last byte")
            XCTAssertTrue(others.allSatisfy { ($0.at - byte.at) > .milliseconds(10) || (byte.at - $0.at) > .milliseconds(10) }, "no collision")
            if let lastOwn { XCTAssertGreaterThanOrEqual(byte.at - lastOwn, .milliseconds(200)) }
            lastOwn = byte.at
        }
        XCTAssertEqual(rig.unsafeToggles, [])
    }

    /// A panel that stops polling is gone after 15 s: garaged stands in for it.
    func testAPanelThatGoesQuietIsStoodInFor() {
        let rig = SecPlus1Rig(.closed, panelEvery: .milliseconds(250))
        rig.opener.panelEvery = nil
        rig.run(for: .seconds(14))
        XCTAssertEqual(rig.session.role, .withPanel)
        XCTAssertFalse(rig.opener.written.contains(SecPlus1Wire.askDoor))
        rig.run(for: .seconds(3))
        XCTAssertEqual(rig.session.role, .standingIn)
        XCTAssertTrue(rig.opener.written.contains(SecPlus1Wire.askDoor))
        XCTAssertTrue(rig.door.openerReady)
    }

    /// A panel's door button on the wire is logged; one during garaged's toggles ends them.
    func testAPanelsDoorPressIsSeenAndEndsASequence() {
        var s = SecPlus1Session(device: "/dev/ttyAMA0", at: t(0))
        let answers: [[UInt8]] = [[0x38, 0x56], [0x3A, 0x58], [0x39, 0x00]]
        for i in 0..<6 { _ = s.received(answers[i % 3], at: t(100 * i)) }
        for i in 6..<12 { _ = s.received(answers[i % 3], at: t(100 * i)) }
        XCTAssertEqual(s.role, .withPanel)
        XCTAssertNil(s.carryOut(permit(.close, warned: true), deadline: t(3_000), at: t(1_300)))
        let events = s.received([0x30], at: t(1_310))
        XCTAssertTrue(events.contains { if case .pressNotSent = $0 { return true } else { return false } }, "\(events)")
        XCTAssertTrue(events.contains { if case .note(let n) = $0 { return n.event == "opener-panel-press" } else { return false } })
    }

    /// A 0x37 panel (398LM-type) is said once not to be supported; its questions go unanswered,
    /// and the silence says why.
    func testA0x37PanelIsLoggedAsNotSupported() {
        var s = SecPlus1Session(device: "/dev/ttyAMA0", at: t(0))
        var notes: [OpenerNote] = []
        for i in 0..<40 {
            for e in s.received([0x37], at: t(250 * i)) { if case .note(let n) = e { notes.append(n) } }
            for e in s.due(at: t(250 * i + 200)).events { if case .note(let n) = e { notes.append(n) } }
        }
        XCTAssertEqual(notes.filter { $0.event == "opener-panel-unsupported" }.count, 1)
        XCTAssertEqual(s.role, .withPanel)
        let silent = notes.first { $0.event == "opener-silent" }
        XCTAssertTrue(silent?.pairs.contains { $0.1.contains("0x37") } ?? false, "\(notes)")
    }

    // MARK: What counts

    /// A state counts once two answers in a row agree; one odd answer changes nothing.
    func testAStateCountsOnceTwoAnswersInARowAgree() {
        var s = SecPlus1Session(device: "/dev/ttyAMA0", at: t(0))
        var told: [OpenerEvent] = []
        func panel(_ bytes: [UInt8], _ ms: Int) { told += s.received(bytes, at: t(ms)).filter { if case .note = $0 { return false } else { return true } } }
        panel([0x38, 0x55], 0); panel([0x3A, 0x58], 100); panel([0x39, 0x00], 200)
        XCTAssertEqual(told, [.answering(true)], "one answer each: nothing counts yet")
        panel([0x38, 0x55], 300); panel([0x3A, 0x58], 400); panel([0x39, 0x00], 500)
        XCTAssertEqual(told.last, .status(.closed, obstructed: false, light: false, locked: false), "bit 3 set: unlocked")
        told = []
        panel([0x38, 0x52], 600); panel([0x38, 0x55], 700); panel([0x38, 0x52], 800)
        XCTAssertEqual(told, [], "open, closed, open: never two in a row")
        panel([0x38, 0x52], 900)
        XCTAssertEqual(told, [.status(.open, obstructed: false, light: false, locked: false)])
        told = []
        panel([0x39, 0x04], 1_000)
        XCTAssertEqual(told, [.status(.open, obstructed: true, light: false, locked: false)], "a broken beam counts at once")
        panel([0x39, 0x00], 1_100)
        XCTAssertEqual(told.count, 1, "the clear waits for a second answer")
        panel([0x39, 0x00], 1_200)
        XCTAssertEqual(told.last, .status(.open, obstructed: false, light: false, locked: false))
        panel([0x3A, 0x44], 1_300); panel([0x3A, 0x44], 1_400)
        XCTAssertEqual(told.last, .status(.open, obstructed: false, light: true, locked: true))
    }

    /// Standing in, a move on the wire (the radio remote's, nothing written) counts within three
    /// slots wherever in the polling it falls: the door is asked every other slot, and an answer
    /// unlike the one that counts is asked again in the next. (One slot in three and no check, as
    /// ratgdo polls, took up to six slots: 1.5 s.)
    func testAMoveOnTheWireCountsWithinThreeSlotsStandingIn() {
        var worst = Duration.zero
        for offset in stride(from: 0, to: 1_000, by: 50) {
            let rig = SecPlus1Rig(.closed)
            rig.opener.travel = .seconds(600)
            rig.run(for: .milliseconds(offset))
            let before = rig.told.count
            let moved = rig.now
            rig.opener.remote(at: moved)
            var counted: Instant?
            while counted == nil, rig.now - moved < .seconds(3) {
                rig.run(for: .milliseconds(5))
                let heard = rig.told.dropFirst(before).contains { if case .status(.opening, _, _, _) = $0 { return true } else { return false } }
                if heard { counted = rig.now }
            }
            guard let counted else { return XCTFail("the move from \(offset) ms into the polling never counted: \(rig.opener.written.suffix(12))") }
            worst = max(worst, counted - moved)
        }
        XCTAssertLessThanOrEqual(worst, .milliseconds(800), "the door asked every other slot (500 ms), checked a slot later (250 ms), answered within 20 ms")
    }

    /// An opener whose door answers flap (noise on the wire) is asked the door at most every
    /// other slot beyond the polling's own: the light and the photo-eye are still asked in turn.
    func testAFlappingDoorAnswerDoesNotStarveTheOtherQuestions() {
        var timing = SecPlus1Session.Timing()
        timing.listenFor = .seconds(1)
        var s = SecPlus1Session(device: "/dev/ttyAMA0", timing: timing, at: t(0))
        var asked: [(ms: Int, byte: UInt8)] = []
        var flap = false
        for ms in 0..<12_000 {
            guard let bytes = s.due(at: t(ms)).write else { continue }
            _ = s.wrote(ok: true, at: t(ms))
            _ = s.received(bytes, at: t(ms + 5))
            guard let question = bytes.first, SecPlus1Wire.isQuestion(question) else { continue }
            asked.append((ms, question))
            flap.toggle()
            let answer: UInt8 = question == SecPlus1Wire.askDoor ? (flap ? 0x55 : 0x52) : question == SecPlus1Wire.askObstruction ? 0x00 : 0x58
            _ = s.received([answer], at: t(ms + 25))
        }
        let polling = asked.filter { $0.ms >= 5_000 }
        XCTAssertGreaterThan(polling.count, 20, "\(asked.map(\.byte))")
        for question in [SecPlus1Wire.askLightLock, SecPlus1Wire.askObstruction] {
            let times = polling.filter { $0.byte == question }.map(\.ms)
            XCTAssertFalse(times.isEmpty, "never asked \(question): \(polling.map(\.byte))")
            for (a, b) in zip(times, times.dropFirst()) { XCTAssertLessThanOrEqual(b - a, 2_000, "asked \(question) at \(a) then \(b) ms") }
        }
    }

    /// Garbage (a byte no question awaited, an answer naming no state) is said once a minute,
    /// then counted; the pairs nobody explained and the idle 0xFF are ignored without a word.
    func testGarbageIsSaidOnceAMinuteWithItsCount() {
        var s = SecPlus1Session(device: "/dev/ttyAMA0", at: t(0))
        var notes: [OpenerNote] = []
        func take(_ events: [OpenerEvent]) { for e in events { if case .note(let n) = e { notes.append(n) } } }
        take(s.received([0x38, 0x55, 0x38, 0x55], at: t(0)))
        for i in 0..<50 { take(s.received([0x9C], at: t(100 + i * 10))) }
        take(s.received([0x38, 0x03], at: t(700)))
        take(s.received([0x40, 0x00, 0x53, 0x01, 0xC0, 0x3F, 0xFF, 0xFF], at: t(800)))
        XCTAssertEqual(notes.map(\.event), ["opener-panel-heard", "opener-byte-refused"])
        XCTAssertTrue(notes[1].pairs.contains { $0 == ("byte", "9c") })
        take(s.due(at: t(60_100)).events)
        let repeats = notes.first { $0.event == "opener-garbage-repeats" }
        XCTAssertEqual(repeats?.pairs.first { $0.0 == "more" }?.1, "50", "49 more bytes and the answer naming no state")
    }

    /// Questions unanswered for 5 s: the opener is silent, the door told; when it answers again
    /// its state is read afresh (two answers) and told again.
    func testItGoesSilentWhenItsQuestionsGoUnansweredAndComesBack() {
        let rig = SecPlus1Rig(.closed)
        XCTAssertTrue(rig.door.openerReady)
        rig.opener.answering = false
        rig.run(for: .seconds(6))
        XCTAssertFalse(rig.door.openerReady)
        XCTAssertEqual(rig.door.fault, .openerSilent)
        XCTAssertEqual(rig.notes("opener-silent").count, 1)
        XCTAssertEqual(rig.door.request(open: true, at: rig.now).refusal, .openerSilent("the Security+ 1.0 opener on /dev/ttyAMA0"))
        rig.opener.answering = true
        rig.run(for: .seconds(3))
        XCTAssertTrue(rig.door.openerReady)
        XCTAssertNil(rig.door.fault)
        XCTAssertEqual(rig.notes("opener-answers").count, 1)
    }

    /// The device going away ends a sequence under way (the door told what was and was not
    /// sent), writes nothing until it is back, and the opener is then read afresh.
    func testTheDeviceGoingAwayEndsASequenceAndItsReturnReadsAfresh() {
        let rig = SecPlus1Rig(.open)
        rig.request(open: false)
        for _ in 0..<200 where !rig.opener.written.contains(SecPlus1Wire.doorPress) { rig.run(for: .milliseconds(50)) }
        XCTAssertTrue(rig.session.releasePending, "pressed, not yet released")
        let gone = rig.session.deviceGone("EIO", at: rig.now)
        XCTAssertTrue(gone.contains(.answering(false)))
        XCTAssertTrue(gone.contains { if case .pressOver = $0 { return true } else { return false } }, "a toggle went out: \(gone)")
        XCTAssertFalse(rig.session.releasePending)
        XCTAssertEqual(rig.session.due(at: rig.now + .seconds(1)).write, nil)
        XCTAssertNotNil(rig.session.carryOut(permit(.open, warned: true), deadline: rig.now + .seconds(2), at: rig.now))
        XCTAssertFalse(rig.session.ask(.light(true), at: rig.now))
        _ = rig.session.deviceBack(at: rig.now + .seconds(1))
        XCTAssertNotNil(rig.session.due(at: rig.now + .seconds(1)).write, "standing in again at once")
    }

    // MARK: Light, lock, warning

    /// The light and the lock are toggles: pressed only while the opener says otherwise, the
    /// light's button released after 500 ms, the lock's held 3.5 s.
    func testTheLightAndTheLockArePressedOnlyWhenTheyDiffer() {
        let rig = SecPlus1Rig(.closed)
        rig.setLight(true)
        rig.run(for: .seconds(3))
        XCTAssertTrue(rig.opener.light)
        _ = rig.session.ask(.light(true), at: rig.now)
        rig.run(for: .seconds(2))
        XCTAssertEqual(rig.opener.written.filter { $0 == SecPlus1Wire.lightPress }.count, 1, "already on: not pressed again")
        rig.lockRemotes(true)
        rig.run(for: .seconds(6))
        XCTAssertFalse(rig.opener.unlocked)
        let press = rig.opener.wire.first { $0.who == .garaged && $0.byte == SecPlus1Wire.lockPress }
        let release = rig.opener.wire.last { $0.who == .garaged && $0.byte == SecPlus1Wire.lockRelease }
        if let press, let release { XCTAssertGreaterThanOrEqual(release.at - press.at, .milliseconds(3_500)) } else { XCTFail("\(rig.opener.written)") }
        XCTAssertEqual(rig.door.remotesLocked, true)
        XCTAssertEqual(rig.door.lightOn, true)
    }

    /// The warning is the light's button pressed every 500 ms, counted from the first press
    /// written; afterwards its button is released and the light left as it was asked.
    func testTheWarningIsTheLightsButtonCountedFromTheFirstPress() {
        let rig = SecPlus1Rig(.open)
        let before = rig.opener.written.count
        rig.request(open: false)
        rig.run(for: .milliseconds(300))
        let first = rig.opener.wire.first { $0.who == .garaged && $0.byte == SecPlus1Wire.lightPress }
        XCTAssertNotNil(first)
        XCTAssertEqual(rig.told.compactMap { if case .warningShown(let at) = $0 { return at } else { return nil } }, first.map { [$0.at] })
        rig.run(for: .seconds(4))
        let flashes = rig.opener.wire.filter { $0.who == .garaged && $0.byte == SecPlus1Wire.lightPress }.map(\.at)
        XCTAssertGreaterThanOrEqual(flashes.count, 8)
        for (a, b) in zip(flashes, flashes.dropFirst()) { XCTAssertLessThanOrEqual(b - a, .milliseconds(500), "at least once a second") }
        XCTAssertFalse(rig.opener.written.dropFirst(before).contains(SecPlus1Wire.lightRelease), "no release between the flashing's presses")
        rig.run(for: .seconds(60))
        XCTAssertFalse(rig.door.warningOn)
        XCTAssertTrue(rig.opener.written.dropFirst(before).contains(SecPlus1Wire.lightRelease))
        XCTAssertEqual(rig.opener.light, false, "left as it was")
        XCTAssertEqual(rig.opener.state, .closed)
        XCTAssertEqual(rig.unsafeToggles, [])
    }
}
