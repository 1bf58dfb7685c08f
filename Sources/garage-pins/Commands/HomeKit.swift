import ArgumentParser
import CQRencode
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

extension GaragePins {
    /// `homekit [show|pairings|reset]`: adding the garage to Apple Home, and undoing it, from the
    /// owner's shell (the setup code lives only in garaged, so only its socket can tell it).
    struct HomeKit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "homekit",
            abstract: "Add the garage to Apple Home: the setup code and its QR code, the paired controllers, a reset (master PIN).",
            discussion: """
            garaged must run with --homekit (or homekit = on in its config). Without a subcommand, \
            `homekit` is `homekit show`.
            """,
            subcommands: [Show.self, Pairings.self, Reset.self],
            defaultSubcommand: Show.self)
    }
}

extension GaragePins.HomeKit {
    /// `homekit show`: what the owner needs to add the garage in the Home app.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the setup code, the X-HM:// setup URI, whether it is paired, and a QR code to scan (master PIN).",
            discussion: """
            The QR code is drawn with half blocks, white on black on a terminal; piped (or with \
            NO_COLOR set) it is drawn in the terminal's own colours, which scan when the text is \
            lighter than the background (use `ssh -t` to keep the colours over ssh). It is not \
            drawn once the garage is paired, or while setup is locked after too many wrong codes: \
            the code would not work then.
            """)
        @OptionGroup var daemon: DaemonOptions
        @Flag(help: "Print garaged's HomeKit record as JSON: setup_code, setup_uri, setup_id, paired, pairings, id, name, category, config_number, failed_setups, setup_locked.")
        var json = false
        @Flag(name: .customLong("no-qr"), help: "Do not draw the QR code.") var noQR = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard let record = try daemon.records(.homekit(.info)).first else {
                    throw .refused("garaged sent no HomeKit record; are garaged and garage-pins the same version?")
                }
                if json { printJSON(record); return }
                guard let code = record["setup_code"]?.stringValue, let uri = record["setup_uri"]?.stringValue else {
                    throw .refused("garaged's HomeKit record has no setup code; are garaged and garage-pins the same version?")
                }
                let paired = record["paired"]?.boolValue == true
                let locked = record["setup_locked"]?.boolValue == true
                let count = record["pairings"]?.intValue ?? 0
                var t = TextTable("WHAT", "NOW")
                if let name = record["name"]?.stringValue { t.add("name", name) }
                t.add("setup code", code)
                t.add("setup URI", uri)
                t.add("paired", paired ? "yes, with \(count) controller\(count == 1 ? "" : "s") (garage-pins homekit pairings)" : "no")
                if locked { t.add("setup", "locked: \(record["failed_setups"]?.intValue ?? 0) wrong setup codes were tried") }
                print(t.text, terminator: "")

                if paired {
                    print("""

                    The garage is in Apple Home already, so the code works again only after \
                    `garage-pins homekit reset`. To let someone else open it, invite them to your \
                    home in the Home app (Home Settings, Invite People).
                    """)
                    return
                }
                if locked {
                    print("""

                    Setup is locked after too many wrong codes: `garage-pins homekit reset` unlocks \
                    it with a new code.
                    """)
                    return
                }
                let drawn = !noQR
                if drawn {
                    guard let modules = TerminalQR.modules(uri) else {
                        throw .refused("""
                            could not draw the QR code of \(uri) (libqrencode: \(String(cString: strerror(errno)))); \
                            type the setup code \(code) in the Home app instead, or pass --no-qr
                            """)
                    }
                    let colored = isatty(1) == 1 && getenv("NO_COLOR") == nil
                    print("")
                    for line in TerminalQR.lines(modules, colored: colored) { print(line) }
                }
                let how = drawn ? "scan this code\n  (or tap More options… and enter the 8 digits \(code))"
                                : "tap More options…\n  and enter the 8 digits \(code)"
                print("""

                To add the garage to Apple Home, on an iPhone on the same network as garaged:
                  open the Home app, tap + and Add Accessory, and \(how).
                  iOS warns that it is an uncertified accessory: tap Add Anyway.
                """)
            }
        }
    }

    /// `homekit pairings`: which Apple devices (controllers) may drive the garage.
    struct Pairings: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the HomeKit controllers paired with the garage, and which are admins (master PIN).",
            discussion: "The first iPhone to add the garage is an admin; the Home app adds the other people of the home itself.")
        @OptionGroup var daemon: DaemonOptions
        @Flag(help: "Print JSON: an array of {id, admin}.") var json = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let records = try daemon.records(.homekit(.pairings))
                if json { printJSON(.array(records)); return }
                if records.isEmpty {
                    print("no HomeKit controller paired; add the garage in the Home app with the code `garage-pins homekit` shows")
                    return
                }
                var t = TextTable("ID", "ADMIN")
                for r in records { t.add(r["id"]?.stringValue ?? "?", r["admin"]?.boolValue == true ? "yes" : "no") }
                print(t.text, terminator: "")
            }
        }
    }

    /// `homekit reset`: the way back when a phone is lost, or the garage left Apple Home badly.
    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget every HomeKit pairing, close every HomeKit session and make a new setup code (master PIN).",
            discussion: "It does not ask for confirmation. Every iPhone must add the garage again afterwards.")
        @OptionGroup var daemon: DaemonOptions

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                // Three requests, one PIN: asked once at the prompt, not three times.
                var asking = daemon
                asking.pin = try daemon.resolvedPIN().string
                let forgotten = try asking.records(.homekit(.pairings)).count
                _ = try asking.send(.local(.homekit(.reset)))
                let code = try asking.records(.homekit(.info)).first?["setup_code"]?.stringValue
                let what = forgotten == 0 ? "there was no pairing" : "forgot \(forgotten) pairing\(forgotten == 1 ? "" : "s")"
                print("HomeKit reset: \(what), closed every HomeKit session, new setup code \(code ?? "(see garage-pins homekit)").")
                print("""
                Every iPhone must add the garage again: remove the old one from the Home app (it shows \
                No Response), then add it with the code and QR code `garage-pins homekit` shows.
                """)
            }
        }
    }
}

/// A QR code in the terminal, drawn by us but encoded by libqrencode (a QR encoder is not
/// something to write again): the Home app's scanner reads it off the screen.
enum TerminalQR {
    /// The light margin every side that scanners need to find the code (4 modules, per the standard).
    static let quietZone = 4

    /// The characters of QR's alphanumeric mode; an X-HM:// URI uses no others.
    static let alphanumeric = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// The symbol's modules, row by row, true for dark: `text` in alphanumeric mode (a smaller
    /// symbol, so bigger modules on screen) at error correction M, which fits an X-HM:// URI in
    /// the smallest symbol, 21 modules. Nil when `text` is not alphanumeric or libqrencode fails
    /// (errno says why).
    static func modules(_ text: String) -> [[Bool]]? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy(alphanumeric.contains) else {
            errno = EINVAL
            return nil
        }
        guard let input = QRinput_new2(0, QR_ECLEVEL_M) else { return nil }
        defer { QRinput_free(input) }
        guard QRinput_append(input, QR_MODE_AN, Int32(bytes.count), bytes) == 0,
              let symbol = QRcode_encodeInput(input) else { return nil }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        // Bit 0 of each byte is the module's colour; the other bits say what part it is.
        return (0..<width).map { row in (0..<width).map { symbol.pointee.data[row * width + $0] & 1 == 1 } }
    }

    /// The lines to print: each character is two module rows (▀ ▄ █, or a space), so modules
    /// come out square in a terminal's tall cells. The light modules and the quiet zone are the
    /// drawn glyphs, the dark modules the background; `colored` makes these white on black
    /// whatever the terminal's colours.
    static func lines(_ modules: [[Bool]], colored: Bool) -> [String] {
        let size = modules.count + 2 * quietZone
        func light(_ row: Int, _ column: Int) -> Bool {
            guard row < size else { return false }  // below the picture: the background
            let r = row - quietZone, c = column - quietZone
            guard r >= 0, c >= 0, r < modules.count, c < modules.count else { return true }
            return !modules[r][c]
        }
        return stride(from: 0, to: size, by: 2).map { row in
            let line = String((0..<size).map { column -> Character in
                switch (light(row, column), light(row + 1, column)) {
                case (true, true): return "█"
                case (true, false): return "▀"
                case (false, true): return "▄"
                case (false, false): return " "
                }
            })
            return colored ? "\u{1B}[97;40m" + line + "\u{1B}[0m" : line
        }
    }
}
