import Foundation
import XCTest

/// H4 of the fourth attack review (issue 37): a damaged `.opener` file (the rolling codes kept
/// beside the table) turns off that door's opener, loudly, and nothing else: garaged starts, the
/// relay door beside it opens, and the opener's door refuses every press naming the file.
final class DamagedOpenerFileTests: GaragedTestCase {
    func testADamagedCodesFileTurnsOffOnlyThatDoorsOpener() throws {
        try initTable()
        try startOpener(named: "gate")
        let trace = dir + "/left.trace", gateLink = dir + "/gate-tty"
        // The second door's file: the table's path, the door's name, ".opener".
        let codesFile = pinsPath + ".gate.opener"
        try write(Array("client 0xnot-hex\nreserved-below -1\n".utf8), to: codesFile)
        let config = dir + "/doors.conf"
        try write(Array("""
            [door left]
            relay = sim:\(trace)
            travel-s = 1
            auto-close-s = 0
            [door gate]
            opener = secplus2:\(gateLink)
            travel-s = 1
            auto-close-s = 0

            """.utf8), to: config)
        let process = try spawn(try Binaries.path(of: "garaged"), ["--pins", pinsPath, "--socket", socketPath, "--no-ble", "--config", config],
                                name: "garaged-damaged-codes")
        let daemon = GaragedDaemon(process: process, pinsPath: pinsPath, socketPath: socketPath, tracePath: trace)
        try waitForSocket(daemon)
        XCTAssertTrue(waitUntil("the opener's door turned off, in the log", timeout: .seconds(5)) {
            daemon.log.contains("opener-off door=gate") && daemon.log.contains(codesFile)
        }, daemon.log)
        // The relay door serves.
        XCTAssertEqual(try daemon.ask("12345O=1"), "OK")
        XCTAssertTrue(waitUntil("the relay's press", timeout: .seconds(5)) { readText(trace).split(separator: "\n").count >= 2 }, readText(trace))
        // The opener's door refuses, saying why, and nothing goes on its wire.
        XCTAssertEqual(try daemon.ask("12345@gate:O=1"), "ERR FAULT")
        XCTAssertTrue(waitUntil("the refusal naming the file", timeout: .seconds(5)) {
            daemon.log.contains("the opener is off: \(codesFile) is damaged")
        }, daemon.log)
        let status = try daemon.connect()
        try status.sendLine(Array("12345Lstatus".utf8))
        let records = try (0..<2).map { _ in try status.readRecord() }
        XCTAssertTrue(records[1].contains(#""id":"gate""#) && records[1].contains(#""state":"off""#), "\(records)")
        XCTAssertTrue(records[1].contains(#""fault":"OPENER OFF""#), "not a silent opener: \(records)")
        XCTAssertEqual(openerPackets(dir + "/gate.jsonl").count, 0, "no code was sent")
        XCTAssertEqual(readText(codesFile), "client 0xnot-hex\nreserved-below -1\n", "the file is left for the owner to mend")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}
