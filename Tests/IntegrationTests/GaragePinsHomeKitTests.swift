import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `garage-pins homekit`: the setup code, URI and QR code the owner adds the garage to Apple
/// Home with, the controllers, a reset, against a real garaged running HomeKit on loopback.
final class GaragePinsHomeKitTests: GaragedTestCase {
    /// garaged with HomeKit on a port the kernel picks, on loopback, on the test's table.
    private func homekitDaemon(_ extra: [String] = []) throws -> GaragedDaemon {
        if !fileExists(pinsPath) { try initTable() }
        return try startDaemon(["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1", "--auto-close-s", "0"] + extra)
    }

    /// `homekit --json`'s record, the run asserted to succeed.
    private func info(_ daemon: GaragedDaemon, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try pins(daemon, ["homekit", "--json"])
        assertExit(result, 0, "homekit --json", file: file, line: line)
        return try XCTUnwrap(json(result.stdout, file: file, line: line) as? [String: Any], result.stdout, file: file, line: line)
    }

    /// The QR code's lines in what `homekit` printed: those made only of half blocks and spaces.
    private func pictureLines(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").map(String.init).filter { line in
            !line.isEmpty && line.allSatisfy { " ▀▄█".contains($0) } && line.contains { $0 != " " }
        }
    }

    /// The setup code, the X-HM:// URI (its 9 base-36 characters: category 4, garage door; the
    /// IP flag, bit 28; the code's 8 digits; then the setup id), and the JSON's other fields.
    func testJSONHasTheCodeAndAURIThatEncodesIt() throws {
        let daemon = try homekitDaemon()
        let record = try info(daemon)
        let code = try XCTUnwrap(record["setup_code"] as? String)
        XCTAssertNotNil(code.wholeMatch(of: /[0-9]{3}-[0-9]{2}-[0-9]{3}/), code)
        XCTAssertEqual(record["paired"] as? Bool, false)
        XCTAssertEqual(record["pairings"] as? Int, 0)
        let setupID = try XCTUnwrap(record["setup_id"] as? String)
        let uri = try XCTUnwrap(record["setup_uri"] as? String)
        XCTAssertTrue(uri.hasPrefix("X-HM://"), uri)
        let body = uri.dropFirst("X-HM://".count)
        XCTAssertEqual(body.count, 9 + 4, uri)
        let payload = try XCTUnwrap(UInt64(String(body.prefix(9)), radix: 36), uri)
        XCTAssertEqual(payload >> 31 & 0xFF, 4, "category 4, a garage door opener: \(uri)")
        XCTAssertEqual(payload >> 27 & 0xF, 0b0010, "only the IP flag (bit 28) is set: \(uri)")
        XCTAssertEqual(payload & 0x7FF_FFFF, UInt64(code.filter(\.isNumber)), "the code's number: \(uri)")
        XCTAssertEqual(String(body.suffix(4)), setupID, "the setup id last: \(uri)")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The human output: the code, the URI, not paired, a QR code of half blocks with its quiet
    /// zone (version 1, 21 modules: only alphanumeric mode fits the URI's 20 characters in it
    /// at level M), and what to do in the Home app; --no-qr leaves the picture out.
    func testShowPrintsTheCodeAQRCodeAndWhatToDo() throws {
        let daemon = try homekitDaemon()
        let record = try info(daemon)
        let result = try pins(daemon, ["homekit"])
        assertExit(result, 0)
        let out = result.stdout
        for expected in [record["setup_code"] as? String ?? "?", record["setup_uri"] as? String ?? "?", "Add Accessory", "Add Anyway", "uncertified"] {
            XCTAssertTrue(out.contains(expected), "lacks \(expected): \(out)")
        }
        XCTAssertTrue(squeezed(out).contains("paired no"), out)
        let picture = pictureLines(out)
        XCTAssertEqual(picture.count, 15, "29 module rows, two a line: \(out)")
        XCTAssertTrue(picture.allSatisfy { $0.count == 29 }, "21 modules and 4 of quiet zone each side: \(out)")
        XCTAssertTrue(picture.joined().contains("▀") && picture.joined().contains("▄"), "drawn with half blocks: \(out)")
        XCTAssertEqual(picture.first, String(repeating: "█", count: 29), "the quiet zone above is light: \(out)")
        XCTAssertFalse(out.contains("\u{1B}["), "no colour codes when stdout is not a terminal")

        let plain = try pins(daemon, ["homekit", "show", "--no-qr"])
        assertExit(plain, 0)
        XCTAssertTrue(pictureLines(plain.stdout).isEmpty, plain.stdout)
        XCTAssertTrue(plain.stdout.contains(record["setup_code"] as? String ?? "?"), plain.stdout)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// The printed picture itself, rendered to an image module by module and read back by
    /// zbar's decoder (zbar-tools): it holds the setup URI. Skipped without zbarimg.
    func testThePrintedQRCodeDecodesToTheSetupURI() throws {
        let zbarimg: String
        do { zbarimg = try Binaries.system("zbarimg", package: "zbar-tools") } catch {
            throw XCTSkip("zbarimg is not installed (apt-get install zbar-tools): the printed QR code is not decoded")
        }
        let daemon = try homekitDaemon()
        let uri = try XCTUnwrap(try info(daemon)["setup_uri"] as? String)
        let result = try pins(daemon, ["homekit"])
        assertExit(result, 0)
        let picture = pictureLines(result.stdout)
        XCTAssertFalse(picture.isEmpty, result.stdout)

        // A drawn half is light (the terminal's text colour), a space the dark background; each
        // module becomes 8 by 8 pixels of a binary PGM.
        let scale = 8
        var rows: [[Bool]] = []
        for line in picture {
            rows.append(line.map { $0 == "█" || $0 == "▀" })
            rows.append(line.map { $0 == "█" || $0 == "▄" })
        }
        let width = rows[0].count * scale
        var image = Array("P5\n\(width) \(rows.count * scale)\n255\n".utf8)
        for row in rows {
            let pixels = row.flatMap { [UInt8](repeating: $0 ? 255 : 0, count: scale) }
            for _ in 0..<scale { image += pixels }
        }
        let path = dir + "/qr.pgm"
        try Data(image).write(to: URL(fileURLWithPath: path))
        let decode = try spawn(zbarimg, ["--raw", "--quiet", "--nodbus", path], name: "zbarimg")
        XCTAssertEqual(decode.waitForExit(timeout: .seconds(15)), .exited(0), "zbarimg found no QR code: \(decode.stderr)")
        XCTAssertEqual(decode.stdout.trimmingCharacters(in: .whitespacesAndNewlines), uri)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// A PIN that is not the master's is refused, and nothing is shown.
    func testAWrongPINIsRefused() throws {
        let daemon = try homekitDaemon()
        for args in [["homekit"], ["homekit", "pairings"], ["homekit", "reset"]] {
            let result = try pins(daemon, args, pin: "54321")
            assertExit(result, 1, args.joined(separator: " "))
            XCTAssertTrue(result.stderr.contains("wrong PIN"), result.stderr)
            XCTAssertEqual(quotedRecord(result.stderr), "ERR PIN", result.stderr)
            XCTAssertFalse(result.stdout.contains("X-HM://"), result.stdout)
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// garaged without --homekit: exit 1 and how to turn it on, for each subcommand.
    func testHomeKitOffSaysHowToTurnItOn() throws {
        try initTable()
        let daemon = try startDaemon()
        for args in [["homekit"], ["homekit", "--json"], ["homekit", "pairings"], ["homekit", "reset"]] {
            let result = try pins(daemon, args)
            assertExit(result, 1, args.joined(separator: " "))
            XCTAssertTrue(result.stderr.contains("HomeKit is off"), result.stderr)
            XCTAssertTrue(result.stderr.contains("--homekit"), result.stderr)
            XCTAssertTrue(result.stderr.contains("homekit = on"), result.stderr)
            XCTAssertEqual(result.stdout, "", "nothing printed on stdout: \(result.stdout)")
        }
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Unpaired: `pairings --json` is `[]`, the table says how to pair; the code outlives a
    /// restart, `reset` makes a new one (without asking), and that one outlives a restart too.
    func testPairingsEmptyAndResetMakesANewCodeThatIsKept() throws {
        var daemon = try homekitDaemon()
        let listed = try pins(daemon, ["homekit", "pairings", "--json"])
        assertExit(listed, 0)
        XCTAssertEqual(listed.stdout, "[]\n")
        let table = try pins(daemon, ["homekit", "pairings"])
        assertExit(table, 0)
        XCTAssertTrue(table.stdout.contains("no HomeKit controller paired") && table.stdout.contains("garage-pins homekit"), table.stdout)

        let first = try XCTUnwrap(try info(daemon)["setup_code"] as? String)
        XCTAssertEqual(daemon.stop(), .exited(0))
        daemon = try homekitDaemon()
        XCTAssertEqual(try info(daemon)["setup_code"] as? String, first, "the code is kept across a restart")

        let reset = try pins(daemon, ["homekit", "reset"])
        assertExit(reset, 0)
        let second = try XCTUnwrap(try info(daemon)["setup_code"] as? String)
        XCTAssertNotEqual(second, first, "reset makes a new setup code")
        XCTAssertTrue(reset.stdout.contains(second), "reset prints the new code: \(reset.stdout)")
        XCTAssertTrue(reset.stdout.contains("Every iPhone must add the garage again"), reset.stdout)
        // The log has its own thread: its line may arrive a moment after the answer.
        waitUntil("the reset in the daemon's log", timeout: .seconds(5)) { daemon.log.contains("homekit-reset") }
        XCTAssertFalse(daemon.log.contains(second), "the new code is never logged")

        XCTAssertEqual(daemon.stop(), .exited(0))
        daemon = try homekitDaemon()
        XCTAssertEqual(try info(daemon)["setup_code"] as? String, second, "the new code is kept across a restart")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Paired by a real controller (aiohomekit, through Tests/homekit/hapctl.py): `homekit`
    /// says so and draws no code that could not work, `pairings` lists it as the admin, and
    /// `reset` forgets it. Skipped without GARAGED_HAPCTL_PYTHON (scripts/test.sh sets it).
    func testPairedShowsTheControllerAndResetForgetsIt() throws {
        guard let python = ProcessInfo.processInfo.environment["GARAGED_HAPCTL_PYTHON"],
              FileManager.default.isExecutableFile(atPath: python) else {
            throw XCTSkip("GARAGED_HAPCTL_PYTHON is not set: run scripts/test.sh, which installs aiohomekit")
        }
        let hapctl = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("homekit/hapctl.py").path
        let daemon = try homekitDaemon()
        var port: String?
        waitUntil("the homekit start line", timeout: .seconds(5)) {
            port = daemon.log.split(separator: "\n").first { $0.contains("INFO homekit ") }
                .flatMap { $0.split(separator: " ").first { $0.hasPrefix("port=") } }.map { String($0.dropFirst(5)) }
            return port != nil
        }
        let record = try info(daemon)
        let pair = try spawn(python, [hapctl, "pair", "--host", "127.0.0.1", "--port", try XCTUnwrap(port),
                                      "--code", record["setup_code"] as? String ?? "", "--id", record["id"] as? String ?? "",
                                      "--pairing", dir + "/controller.json"], name: "hapctl-pair")
        XCTAssertEqual(pair.waitForExit(timeout: .seconds(40)), .exited(0), pair.stdout + pair.stderr)

        let shown = try pins(daemon, ["homekit"])
        assertExit(shown, 0)
        XCTAssertTrue(squeezed(shown.stdout).contains("paired yes, with 1 controller "), shown.stdout)
        XCTAssertTrue(pictureLines(shown.stdout).isEmpty, "no QR code once paired: \(shown.stdout)")
        XCTAssertTrue(shown.stdout.contains("garage-pins homekit reset") && shown.stdout.contains("Invite People"), shown.stdout)

        let listed = try pins(daemon, ["homekit", "pairings", "--json"])
        assertExit(listed, 0)
        let controllers = try XCTUnwrap(json(listed.stdout) as? [[String: Any]], listed.stdout)
        XCTAssertEqual(controllers.count, 1, listed.stdout)
        XCTAssertEqual(controllers.first?["admin"] as? Bool, true, listed.stdout)
        let id = try XCTUnwrap(controllers.first?["id"] as? String)
        let table = try pins(daemon, ["homekit", "pairings"])
        assertExit(table, 0)
        XCTAssertEqual(squeezed(table.stdout), "ID ADMIN\n\(id) yes\n")

        let reset = try pins(daemon, ["homekit", "reset"])
        assertExit(reset, 0)
        XCTAssertTrue(reset.stdout.contains("forgot 1 pairing,"), reset.stdout)
        XCTAssertEqual(try info(daemon)["paired"] as? Bool, false)
        XCTAssertEqual(try pins(daemon, ["homekit", "pairings", "--json"]).stdout, "[]\n")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// Removing the last admin forgets every pairing, and the setup code stayed valid: whoever
    /// had seen it could pair again (issue 29). Unpaired so, the accessory now has a new code,
    /// which `homekit` shows and which pairs; the old one is refused as a wrong code.
    func testTheLastAdminLeavingMakesANewSetupCode() throws {
        _ = try python()
        let daemon = try homekitDaemon()
        let old = try XCTUnwrap(try info(daemon)["setup_code"] as? String)
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let unpaired = try hap(["unpair", "--pairing", pairingFile, "--port", try homekitPort(daemon)])
        XCTAssertEqual(unpaired.termination, .exited(0), unpaired.stdout + unpaired.stderr)
        let record = try info(daemon)
        XCTAssertEqual(record["paired"] as? Bool, false)
        let new = try XCTUnwrap(record["setup_code"] as? String)
        XCTAssertNotEqual(new, old, "a new setup code once the last admin left")
        let shown = try pins(daemon, ["homekit", "--no-qr"])
        assertExit(shown, 0)
        XCTAssertTrue(shown.stdout.contains(new) && !shown.stdout.contains(old), shown.stdout)
        let stale = try homekitPair(daemon, code: old)
        XCTAssertTrue(stale.stdout.contains("AuthenticationError"), "the old code no longer pairs: " + stale.stdout)
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0), "the new one does")
        XCTAssertEqual(daemon.stop(), .exited(0))
    }
}
