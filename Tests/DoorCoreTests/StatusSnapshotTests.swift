import XCTest
@testable import DoorCore

/// One snapshot a turn, and each audience's view of two of them: what phones, followers, Home
/// Assistant, systemd and HomeKit are sent is a pure function of the last snapshot and the new.
final class StatusSnapshotTests: XCTestCase {
    private let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(10), autoClose: nil, warning: nil)
    private let phone = RequestSource("bluetooth 00:AA:01:01:00:01", channel: .remote)

    private func twoDoors() throws -> Controller {
        var table = try PinTable(master: pin("12345"), capacity: 4)
        _ = try table.add(pin("24680"))
        return Controller(table: table,
                          doors: [DoorUnit(door: Door(timing: timing), id: "left"),
                                  DoorUnit(door: Door(timing: timing, index: 1), id: "gate")],
                          store: MemoryStore(), access: DoorAccess([1: ["gate"]]))
    }

    func testPhonesArePushedOnlyTheDoorWhoseStateChanged() throws {
        var c = try twoDoors()
        let first = c.snapshot(at: t(0))
        XCTAssertEqual(first.phonePushes(since: nil, at: t(0)), [], "no phone saw the first snapshot change")
        _ = c.judgeAndAccount(Array("12345@gate:O=1".utf8), from: phone, at: t(10))
        let opening = c.snapshot(at: t(10))
        XCTAssertEqual(opening.phonePushes(since: first, at: t(10)).map(\.text), ["@2:S OPENING"])
        XCTAssertEqual(opening.phonePushes(since: opening, at: t(10)), [])
    }

    func testAFollowerSeesOnlyTheChangedDoorsItsPINMayWatch() throws {
        var c = try twoDoors()
        let first = c.snapshot(at: t(0))
        let asSlot1 = { (door: Int) in c.mayWatch(door, slot: 1) }
        XCTAssertEqual(first.followerRecords(since: nil, at: t(0), mayWatch: asSlot1).count, 1, "at start: every door it may see")
        _ = c.judgeAndAccount(Array("12345@left:O=1".utf8), from: phone, at: t(10))
        let leftMoved = c.snapshot(at: t(10))
        XCTAssertEqual(leftMoved.changedDoors(since: first), [0])
        XCTAssertEqual(leftMoved.followerRecords(since: first, at: t(10), mayWatch: asSlot1), [], "slot 1 may not see the left door")
        XCTAssertEqual(leftMoved.followerRecords(since: first, at: t(10), mayWatch: { _ in true }).count, 1)
        // A lockout is in every door's record: it changes them all.
        for i in 0..<6 { _ = c.judgeAndAccount(Array("99999O=1".utf8), from: phone, at: t(20 + i)) }
        let locked = c.snapshot(at: t(30))
        XCTAssertEqual(locked.changedDoors(since: leftMoved), [0, 1])
        XCTAssertEqual(locked.record(door: 1, at: t(30))["number"], .number(2))
    }

    func testHomeAssistantIsSentWhatChangedAndTheLockoutOnce() throws {
        var c = try twoDoors()
        let ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G", commandsEnabled: false,
                               version: "0", covers: [.init(id: "left", name: nil), .init(id: "gate", name: nil)])
        let first = c.snapshot(at: t(0))
        let all = ha.retained(from: nil, to: first, at: t(0))
        XCTAssertEqual(all.filter { $0.topic.hasSuffix("/lockout") }.count, 1, "the lockout is the garage's, told once")
        XCTAssertEqual(all.count, 7)
        _ = c.judgeAndAccount(Array("12345@gate:O=1".utf8), from: phone, at: t(10))
        let changed = ha.retained(from: first, to: c.snapshot(at: t(10)), at: t(10))
        XCTAssertEqual(changed.map(\.topic), ["garaged/d/gate/state", "garaged/d/gate/last_opened_by"])
        XCTAssertEqual(changed.map(\.value), ["opening", "master PIN"])
    }

    func testSystemdsLineNamesEachDoorAndTheLockoutUntilATime() throws {
        var c = try twoDoors()
        XCTAssertEqual(c.snapshot(at: t(0)).serviceLine(at: t(0), until: { "+\($0)s" }), "doors left CLOSED (believed: no sensors); gate CLOSED (believed: no sensors); lockout none")
        for i in 0..<6 { _ = c.judgeAndAccount(Array("99999O=1".utf8), from: phone, at: t(i)) }
        var s = c.snapshot(at: t(10))
        s.channels = [ChannelStatus(name: "mqtt", record: .null, line: "connected"), ChannelStatus(name: "other", record: .null, line: "x")]
        XCTAssertEqual(s.serviceLine(at: t(10), until: { "+\($0)s" }).split(separator: ";").suffix(2).map { $0.trimmingCharacters(in: .whitespaces) },
                       ["lockout remote until +1s", "mqtt connected"])
    }

    /// systemd is sent the line only when it reads differently: a change the line does not show
    /// (who last opened) sends nothing.
    func testSystemdIsSentTheLineOnlyWhenItChanged() throws {
        var c = try twoDoors()
        let first = c.snapshot(at: t(0))
        XCTAssertEqual(first.serviceLine(since: nil, at: t(0), until: { "+\($0)s" }), first.serviceLine(at: t(0), until: { "+\($0)s" }))
        XCTAssertNil(first.serviceLine(since: first, at: t(0), until: { "+\($0)s" }))
        var opener = first
        opener.doors[1].lastOpener = "Anna's phone"
        XCTAssertNil(opener.serviceLine(since: first, at: t(0), until: { "+\($0)s" }), "who opened it is not in the line")
        _ = c.judgeAndAccount(Array("12345@gate:O=1".utf8), from: phone, at: t(10))
        XCTAssertEqual(c.snapshot(at: t(10)).serviceLine(since: first, at: t(10), until: { "+\($0)s" }),
                       "doors left CLOSED (believed: no sensors); gate OPENING (believed: no sensors); lockout none")
    }

    /// Home Assistant's values from the snapshot last published: a value that changed and
    /// changed back before the MQTT thread came round is not sent again.
    func testHomeAssistantIsSentNothingForAChangeUndone() throws {
        var c = try twoDoors()
        let ha = HomeAssistant(prefix: "garaged", discoveryPrefix: "homeassistant", node: "d", name: "G", commandsEnabled: false,
                               version: "0", covers: [.init(id: "left", name: nil), .init(id: "gate", name: nil)])
        let first = c.snapshot(at: t(0))
        var lit = first
        lit.doors[0].light = true
        XCTAssertEqual(ha.retained(from: first, to: lit, at: t(0)).map(\.topic), ["garaged/d/left/light"])
        XCTAssertTrue(ha.retained(from: first, to: first, at: t(5)).isEmpty, "published, changed and changed back: nothing")
        _ = c.judgeAndAccount(Array("12345@gate:O=1".utf8), from: phone, at: t(10))
        XCTAssertEqual(ha.retained(from: first, to: c.snapshot(at: t(10)), at: t(10)).map(\.topic),
                       ["garaged/d/gate/state", "garaged/d/gate/last_opened_by"])
    }

    /// HomeKit's target of a STOPPED door is where it was headed, from the door itself: the
    /// view keeps no state of its own.
    func testHomeKitsTargetOfAStoppedDoorIsWhereItWasHeaded() throws {
        var c = Controller(table: try PinTable(master: pin("12345"), capacity: 4),
                           door: Door(timing: timing, sensing: DoorSensing(closedSwitch: true, openSwitch: true), open: true, at: t(0)),
                           store: MemoryStore())
        XCTAssertEqual(HAPDoorView(c.status(at: t(0))).target, HAPDoorView.open)
        _ = c.sensor(.open, active: false, at: t(1_000))  // a remote closes it
        XCTAssertEqual(HAPDoorView(c.status(at: t(1_000))), HAPDoorView(current: 3, target: HAPDoorView.closed, obstruction: false, light: nil))
        _ = c.tick(at: t(20_000))  // it never reaches CLOSED: stopped on the way down
        let stopped = HAPDoorView(c.status(at: t(20_000)))
        XCTAssertEqual(stopped.current, 4)
        XCTAssertEqual(stopped.target, HAPDoorView.closed, "stopped on its way to closed")
        XCTAssertEqual(c.status(at: t(20_000)).heading, .closed)
    }
}
