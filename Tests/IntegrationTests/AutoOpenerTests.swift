import Foundation
import XCTest

/// `opener = auto:DEVICE` (issue 38) against both fakes on a pty, whose wires carry bytes intact
/// only at their own speed: it finds Security+ 2.0 by GET_STATUS, 1.0 by a panel's polls or its
/// answer to 0x38; keeps the result beside the PIN table and starts from it; searches again
/// when the kept wire stays silent; refuses presses while searching, never carrying them out later.
final class AutoOpenerTests: GaragedTestCase {
    private var link1: String { dir + "/opener1-tty" }
    private var wireLog1: String { dir + "/opener1.jsonl" }
    private var keptPath: String { pinsPath + ".opener-found" }

    private func startOpener1(panel: Bool = false) throws {
        try startOpener1(link: link1, log: wireLog1, control: dir + "/opener1-control", panel: panel, travel: 2)
    }

    private func startAuto(_ link: String? = nil) throws -> GaragedDaemon {
        try startGaragedWithOpener(["--opener-listen-s", "1"], name: "garaged-auto", spec: "auto", link: link)
    }

    /// garaged's bytes on the 1.0 fake's wire that it understood (at 1200 baud).
    private func bytes1() -> [Int] {
        readText(wireLog1).split(separator: "\n").compactMap { try? JSONDecoder().decode(WireByte.self, from: Data($0.utf8)) }
            .filter { $0.who == "garaged" }.compactMap(\.byte)
    }

    private func awaitConnected(_ daemon: GaragedDaemon, within: Duration = .seconds(40), file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(waitUntil("the opener found and connected", timeout: within) { doorStatus(daemon).contains(#""state":"connected""#) },
                      doorStatus(daemon) + "\n" + daemon.log, file: file, line: line)
    }

    func testItFinds20ByGetStatusKeepsItAndTheNextStartDoesNotSearch() throws {
        try initTable()
        try startOpener()
        let daemon = try startAuto()
        awaitConnected(daemon)
        let status = doorStatus(daemon)
        XCTAssertTrue(status.contains(#""protocol":"secplus2""#) && status.contains(#""found":"found by auto: an answer to GET_STATUS""#), status)
        XCTAssertFalse(status.contains(#""motion""#) || status.contains(#""openings""#), "an auto door shows what both wires have: \(status)")
        XCTAssertTrue(waitUntil("kept", timeout: .seconds(5)) { readText(keptPath).contains("protocol secplus2") }, readText(keptPath))
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        assertDoor(daemon, becomes: "OPEN", "opened through the found wire", within: .seconds(10))
        XCTAssertEqual(daemon.stop(), .exited(0))

        let again = try startAuto()
        awaitConnected(again, within: .seconds(10))
        XCTAssertTrue(doorStatus(again).contains(#""found":"kept from an earlier search (an answer to GET_STATUS)""#), doorStatus(again))
        XCTAssertTrue(waitUntil("the kept line", timeout: .seconds(5)) { again.log.contains("opener-kept") }, again.log)
        XCTAssertFalse(again.log.contains("opener-search "), "no search: \(again.log)")
        XCTAssertEqual(again.stop(), .exited(0))
    }

    func testItFinds10ByAPanelsPollsAndOpensThroughIt() throws {
        try initTable()
        try startOpener1(panel: true)
        let daemon = try startAuto(link1)
        awaitConnected(daemon)
        let status = doorStatus(daemon)
        XCTAssertTrue(status.contains(#""protocol":"secplus1""#) && status.contains("a wall panel's polls"), status)
        XCTAssertFalse(status.contains(#""motion""#) || status.contains(#""openings""#), status)
        XCTAssertEqual(bytes1(), [], "with a panel polling, nothing of garaged's at 1200 before a press")
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertTrue(waitUntil("the door toggled", timeout: .seconds(10)) { bytes1().contains(0x30) }, "\(bytes1())")
        XCTAssertTrue(waitUntil("kept", timeout: .seconds(5)) { readText(keptPath).contains("protocol secplus1") }, readText(keptPath))
        assertDoor(daemon, becomes: "OPEN", "opened", within: .seconds(10))
        // A close is warned: the opener's light flashes (its button, 0x32) before the toggle.
        XCTAssertEqual(try daemon.ask("12345O=0"), "OK")
        assertDoor(daemon, becomes: "CLOSED", "closed after the warning", within: .seconds(20))
        let mine = bytes1()
        guard let flash = mine.firstIndex(of: 0x32), let toggle = mine.lastIndex(of: 0x30) else { return XCTFail("\(mine)") }
        XCTAssertLessThan(flash, toggle, "warned first: \(mine)")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testItFinds10WithoutAPanelByItsAnswerTo0x38AndRefusesPressesWhileSearching() throws {
        try initTable()
        try startOpener1()
        let daemon = try startAuto(link1)
        XCTAssertEqual(try daemon.ask("12345O=1"), "ERR FAULT", "searching: refused")
        XCTAssertTrue(waitUntil("the refusal's reason", timeout: .seconds(5)) {
            daemon.log.contains("still searching for the wire of the opener on \(link1)")
        }, daemon.log)
        let searching = doorStatus(daemon)
        XCTAssertTrue(searching.contains(#""protocol":"auto""#) && searching.contains(#""state":"searching""#)
                      && searching.contains(#""found":"searching: Security+ 2.0 at 9600 8N1"#), searching)
        awaitConnected(daemon)
        XCTAssertTrue(doorStatus(daemon).contains("found by auto: the opener's answer to 0x38"), doorStatus(daemon))
        XCTAssertTrue(bytes1().contains(0x38), "asked as a panel would: \(bytes1())")
        // The refused press is never carried out later: six more questions on, still none.
        let asked = bytes1().count
        XCTAssertTrue(waitUntil("six more questions", timeout: .seconds(10)) { bytes1().count >= asked + 6 }, "\(bytes1())")
        XCTAssertFalse(bytes1().contains(0x30), "no door press: \(bytes1())")
        XCTAssertTrue(doorStatus(daemon).hasPrefix(#"{"door":"CLOSED""#), doorStatus(daemon))
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    func testAKeptWireThatStaysSilentIsSearchedAgainAndADamagedOneToo() throws {
        try initTable()
        try startOpener()
        try "protocol secplus1\nfound-by the opener's answer to 0x38\n".write(toFile: keptPath, atomically: true, encoding: .utf8)
        let daemon = try startAuto()
        awaitConnected(daemon)
        XCTAssertTrue(daemon.log.contains("opener-kept"), daemon.log)
        XCTAssertTrue(waitUntil("searched again", timeout: .seconds(5)) { daemon.log.contains("opener-search-again") }, daemon.log)
        XCTAssertTrue(doorStatus(daemon).contains(#""protocol":"secplus2""#), doorStatus(daemon))
        XCTAssertTrue(waitUntil("kept anew", timeout: .seconds(5)) { readText(keptPath).contains("protocol secplus2") }, readText(keptPath))
        XCTAssertEqual(daemon.stop(), .exited(0))

        try "protocol zigbee\n".write(toFile: keptPath, atomically: true, encoding: .utf8)
        let again = try startAuto()
        awaitConnected(again)
        XCTAssertEqual(again.log.components(separatedBy: "opener-found-unreadable").count - 1, 1, again.log)
        XCTAssertTrue(readText(keptPath).contains("protocol secplus2"), readText(keptPath))
        XCTAssertEqual(again.stop(), .exited(0))
    }

    /// doctor with auto: what is kept (nothing yet), and what answers, as the search finds it.
    func testDoctorSaysWhatAnswersAndWhatIsKept() throws {
        try initTable()
        try startOpener()
        try startOpener1()
        for (link, says) in [(openerLink, "found Security+ 2.0 (an answer to GET_STATUS at 9600 8N1; door closed)"),
                             (link1, "found Security+ 1.0 at 1200 8E1 (the opener's answer to 0x38; door closed)")] {
            let doctor = try spawn(try Binaries.path(of: "garaged"), ["doctor", "--pins", pinsPath, "--socket", socketPath, "--no-ble",
                                                                     "--opener", "auto:\(link)"], name: "doctor-auto")
            XCTAssertEqual(doctor.waitForExit(timeout: .seconds(20)), .exited(0), doctor.stdout)
            XCTAssertTrue(doctor.stdout.contains(says), doctor.stdout)
            XCTAssertTrue(doctor.stdout.contains("auto: no search result kept yet"), doctor.stdout)
        }
        XCTAssertFalse(bytes1().contains(0x30), "doctor presses nothing")
    }
}
