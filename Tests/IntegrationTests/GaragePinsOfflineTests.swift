import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The offline commands on table files: moving from the book's Arduino (import-eeprom), backups
/// (export/import), check and master, each refusing a table a running daemon holds.
final class GaragePinsOfflineTests: GaragedTestCase {
    /// An EEPROM image made the way the book's sketch writes one: the chip starts erased
    /// (0xFF); at first start the sketch stores the master in slot 0 and zeroes its own
    /// NUMBER_OF_PINS slots (flag and PIN bytes); adding a PIN writes flag 1 and the five
    /// bytes into the first free slot; deleting writes flag 0 and leaves the old bytes.
    struct BookSketch {
        var eeprom = [UInt8](repeating: 0xFF, count: 1024)
        let numberOfPins: Int

        init(numberOfPins: Int, master: String) {
            self.numberOfPins = numberOfPins
            for i in 0..<numberOfPins * 6 { eeprom[i] = 0 }
            write(slot: 0, master)
        }

        mutating func write(slot: Int, _ pin: String) {
            eeprom[slot * 6] = 1
            for (k, b) in pin.utf8.enumerated() { eeprom[slot * 6 + 1 + k] = b }
        }

        mutating func add(_ pin: String) {
            let free = (1..<numberOfPins).first { eeprom[$0 * 6] == 0 }!
            write(slot: free, pin)
        }

        mutating func delete(slot: Int) { eeprom[slot * 6] = 0 }
    }

    func testAnArduinoDumpBecomesATableTheDaemonAcceptsAndWhosePINsOpenTheDoor() throws {
        var sketch = BookSketch(numberOfPins: 10, master: "M4st3")
        sketch.add("abcde")
        sketch.add("fghij")
        sketch.add("k!m#o")
        sketch.delete(slot: 1)
        let dump = dir + "/eeprom.bin"
        try write(sketch.eeprom, to: dump)

        let imported = try garagePins(["import-eeprom", dump, "--pins", pinsPath])
        assertExit(imported, 0)
        XCTAssertTrue(imported.stdout.contains("2 in slots 2, 3"), imported.stdout)
        XCTAssertTrue(squeezed(imported.stdout).contains("free (zeroed) 7"), imported.stdout)
        XCTAssertEqual(readBytes(pinsPath), expectedImage((0..<10).map { [0: "M4st3", 2: "fghij", 3: "k!m#o"][$0] }))
        XCTAssertEqual(permissions(pinsPath), 0o600)

        let daemon = try startDaemon(["--travel-s", "0", "--auto-close-s", "0"])
        assertExit(try pins(daemon, ["open"], pin: "fghij"), 0)
        let trace = try waitForTrace(daemon, count: 3)
        XCTAssertEqual(trace.map(\.level), [0, 1, 0], "the imported PIN pressed the button")
        assertExit(try pins(daemon, ["open"], pin: "abcde"), 1, "the deleted PIN stays deleted")
        let list = try pins(daemon, ["list", "--json"], pin: "M4st3")
        XCTAssertEqual((json(list.stdout) as? [[String: Any]])?.compactMap { $0["slot"] as? Int }, [2, 3])
        assertExit(try pins(daemon, ["add", "pqrst"], pin: "M4st3"), 0)
        XCTAssertTrue(try pins(daemon, ["list"], pin: "M4st3").stdout.contains("1     pqrst"), "the zeroed slot is free")

        // A second import refuses to overwrite without --force, and refuses while the daemon holds it.
        let held = try garagePins(["import-eeprom", dump, "--pins", pinsPath, "--force"])
        assertExit(held, 1)
        XCTAssertTrue(held.stderr.contains("process \(daemon.pid)"), held.stderr)
        XCTAssertEqual(daemon.stop(), .exited(0))
        let again = try garagePins(["import-eeprom", dump, "--pins", pinsPath])
        assertExit(again, 1)
        XCTAssertTrue(again.stderr.contains("--force"), again.stderr)
        let grown = try garagePins(["import-eeprom", dump, "--pins", pinsPath, "--force", "--slots", "16", "--json"])
        assertExit(grown, 0)
        XCTAssertEqual((json(grown.stdout) as? [String: Any])?["slots"] as? Int, 16)
        XCTAssertEqual(readBytes(pinsPath), expectedImage((0..<16).map { [0: "M4st3", 2: "fghij", 3: "k!m#o"][$0] }))
    }

    func testSlotsThatStillRead0xFFWereNeverWrittenAndAreFree() throws {
        // A sketch built with NUMBER_OF_PINS 4 and later flashed with 8 without re-zeroing:
        // slots 4..7 were never written until a PIN went into slot 6.
        var sketch = BookSketch(numberOfPins: 4, master: "12345")
        sketch.write(slot: 6, "zzzzz")
        let dump = dir + "/eeprom.bin"
        try write(sketch.eeprom, to: dump)
        let r = try garagePins(["import-eeprom", dump, "--pins", pinsPath])
        assertExit(r, 0)
        XCTAssertTrue(squeezed(r.stdout).contains("free (never written) 2"), r.stdout)
        XCTAssertEqual(readBytes(pinsPath), expectedImage((0..<7).map { [0: "12345", 6: "zzzzz"][$0] }))
    }

    func testAWrongSizedOrCorruptDumpIsRefusedWithTheReason() throws {
        let cases: [([UInt8], String)] = [
            ([UInt8](repeating: 0xFF, count: 1000), "1000 bytes"),
            (Array(":10000000FFFFFFFF\n".utf8), "Intel HEX"),
            ([UInt8](repeating: 0xFF, count: 1024), "never written"),
            ({ var s = BookSketch(numberOfPins: 8, master: "12345"); s.eeprom[18] = 0x07; return s.eeprom }(), "slot 3 has flag 0x07 at byte 18"),
            ({ var s = BookSketch(numberOfPins: 8, master: "12345"); s.write(slot: 2, "ab\u{1}de"); return s.eeprom }(), "slot 2 is marked used but holds byte 0x01 at byte 15"),
            ({ var s = BookSketch(numberOfPins: 8, master: "12345"); s.eeprom[1022] = 0; return s.eeprom }(), "byte 1022"),
        ]
        for (i, (bytes, reason)) in cases.enumerated() {
            let dump = dir + "/bad\(i).bin"
            try write(bytes, to: dump)
            let r = try garagePins(["import-eeprom", dump, "--pins", pinsPath])
            assertExit(r, 1, reason)
            XCTAssertTrue(r.stderr.contains(reason), "expected '\(reason)': \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(dump), r.stderr)
            XCTAssertFalse(fileExists(pinsPath), "nothing written for \(reason)")
        }
    }

    func testExportAndImportRoundTripPINsAndLabels() throws {
        try initTable(slots: 8)
        let daemon = try startDaemon()
        assertExit(try pins(daemon, ["add", "24680", "--label", "Alice"]), 0)
        assertExit(try pins(daemon, ["add", "13579"]), 0)
        assertExit(try pins(daemon, ["add", "11111", "--label", "Zoë \"Z\""]), 0)
        assertExit(try pins(daemon, ["delete", "2"]), 0)

        // export reads a held table (a read is atomic); import into it is refused.
        let export = try garagePins(["export", "--pins", pinsPath])
        assertExit(export, 0)
        let doc = json(export.stdout) as? [String: Any]
        XCTAssertEqual(doc?["format"] as? String, "garaged-pins")
        XCTAssertEqual(doc?["slots"] as? Int, 8)
        XCTAssertEqual(doc?["master"] as? String, "12345")
        XCTAssertEqual((doc?["pins"] as? [[String: Any]])?.compactMap { $0["label"] as? String }, ["Alice", "Zoë \"Z\""])
        let backup = dir + "/backup.json"
        try write(Array(export.stdout.utf8), to: backup)
        let held = try garagePins(["import", backup, "--pins", pinsPath, "--force"])
        assertExit(held, 1)
        XCTAssertTrue(held.stderr.contains("process \(daemon.pid)"), held.stderr)

        let other = dir + "/other"
        assertExit(try garagePins(["import", backup, "--pins", other]), 0)
        XCTAssertEqual(readBytes(other), readBytes(pinsPath))
        XCTAssertEqual(readText(other + ".labels"), readText(pinsPath + ".labels"))
        let refused = try garagePins(["import", backup, "--pins", other])
        assertExit(refused, 1)
        XCTAssertTrue(refused.stderr.contains("--force"), refused.stderr)

        // A hand-edited backup with a mistake names the field.
        let broken = dir + "/broken.json"
        try write(Array(export.stdout.replacingOccurrences(of: "\"24680\"", with: "\"2468\"").utf8), to: broken)
        let bad = try garagePins(["import", broken, "--pins", dir + "/third", "--force"])
        assertExit(bad, 1)
        XCTAssertTrue(bad.stderr.contains("pins[0].pin"), bad.stderr)
        XCTAssertFalse(fileExists(dir + "/third"))

        // A file far bigger than any backup is refused with its size; it used to be read in
        // part and reported as "unterminated string".
        let huge = dir + "/huge.json"
        try write(Array(export.stdout.utf8) + Array(repeating: 0x20, count: 5 << 20), to: huge)
        let tooBig = try garagePins(["import", huge, "--pins", dir + "/fourth"])
        assertExit(tooBig, 1)
        XCTAssertTrue(tooBig.stderr.contains("\(huge) is \(export.stdout.utf8.count + (5 << 20)) bytes"), tooBig.stderr)
        XCTAssertFalse(tooBig.stderr.contains("unterminated"), tooBig.stderr)
        XCTAssertFalse(fileExists(dir + "/fourth"))
    }

    func testCheckDescribesAValidTableAndExplainsACorruptOne() throws {
        try initTable()
        let ok = try garagePins(["check", pinsPath])
        assertExit(ok, 0)
        XCTAssertTrue(ok.stdout.contains("a valid garaged table"), ok.stdout)
        XCTAssertTrue(ok.stdout.contains("0 used, 15 free"), ok.stdout)
        var image = readBytes(pinsPath)!
        image[6] = 9
        let corrupt = dir + "/corrupt"
        try write(image, to: corrupt)
        let bad = try garagePins(["check", corrupt, "--json"])
        assertExit(bad, 1)
        XCTAssertEqual((json(bad.stdout) as? [String: Any])?["valid"] as? Bool, false)
        XCTAssertTrue(bad.stderr.contains("slot 1 has flag 0x09"), bad.stderr)
    }

    func testMasterChangesOnlyWithTheOldPINOrForceAndNeverUnderADaemon() throws {
        try initTable()
        let daemon = try startDaemon()
        let held = try garagePins(["master", "--pins", pinsPath, "--old", "12345", "--new", "54321"])
        assertExit(held, 1)
        XCTAssertTrue(held.stderr.contains("process \(daemon.pid)"), held.stderr)
        assertExit(try pins(daemon, ["add", "24680"]), 0)
        XCTAssertEqual(daemon.stop(), .exited(0))

        let wrong = try garagePins(["master", "--pins", pinsPath, "--old", "99999", "--new", "54321"])
        assertExit(wrong, 1)
        XCTAssertTrue(wrong.stderr.contains("not the current master PIN"), wrong.stderr)
        let noOld = try garagePins(["master", "--pins", pinsPath, "--new", "54321"])
        assertExit(noOld, 2)
        let dup = try garagePins(["master", "--pins", pinsPath, "--old", "12345", "--new", "24680"])
        assertExit(dup, 1)
        XCTAssertTrue(dup.stderr.contains("slot 1"), dup.stderr)
        assertExit(try garagePins(["master", "--pins", pinsPath, "--old", "12345", "--new", "54321"]), 0)
        XCTAssertEqual(readBytes(pinsPath), expectedImage(slots(master: "54321", [1: "24680"])))
        assertExit(try garagePins(["master", "--pins", pinsPath, "--force", "--new", "67890"]), 0)

        let again = try startDaemon()
        assertExit(try pins(again, ["list"], pin: "67890"), 0)
        assertExit(try pins(again, ["list"], pin: "54321"), 1)
    }
}
