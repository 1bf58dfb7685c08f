import ArgumentParser
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

extension GaragePins {
    /// `pair [--label NAME] [--admin] [--seconds N]`: lets one phone bond, showing the passkey.
    struct Pair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let one phone pair over Bluetooth: shows the passkey to type on it (master PIN).",
            discussion: """
            Needs garaged with --ble-security paired. Opens a pairing window (60 s unless \
            --seconds) for one phone; nobody else can bond meanwhile or after. On the phone, \
            open the book's app (or the Bluetooth settings) near the garage and write to it: \
            iOS shows "Bluetooth Pairing Request" with a field for a code; type the 6-digit \
            passkey printed here. The phone is then known by LABEL (`phones`, the history). \
            Only LE Secure Connections with that passkey is accepted; a phone that offers legacy \
            pairing or pairing without a passkey is refused and told why here. Exit status 0 \
            once the phone is paired, 1 when the window closed without one.
            """)
        @OptionGroup var daemon: DaemonOptions
        @Option(help: ArgumentHelp("The phone's name (default: phone N).", valueName: "NAME")) var label: String?
        @Flag(help: "The phone may also manage PINs (P, A, E, D, C=) over Bluetooth, with the master PIN.") var admin = false
        @Option(help: ArgumentHelp("How long the window stays open (1-\(PairingWindow.maxSeconds)).", valueName: "SECONDS"))
        var seconds = PairingWindow.defaultSeconds

        func validate() throws {
            if let label, let problem = Labels.problem(with: label) { throw ValidationError("--label: \(problem)") }
            if label?.isEmpty == true { throw ValidationError("--label: give a name, or leave --label out") }
            guard (1...PairingWindow.maxSeconds).contains(seconds) else {
                throw ValidationError("--seconds must be from 1 to \(PairingWindow.maxSeconds), not \(seconds)")
            }
        }

        func run() throws {
            var paired = false
            try runReportingErrors { () throws(CLIError) in
                let request = PairingWindow.Request(label: label, admin: admin, seconds: seconds)
                try daemon.follow(.pair(request)) { record in
                    if let s = record["pairing"]?.stringValue, s == "open" {
                        print("pairing window open for \(record["seconds"]?.intValue ?? 0) s: connect the phone (it will be \"\(record["label"]?.stringValue ?? "?")\")")
                    } else if let passkey = record["passkey"]?.stringValue {
                        print("passkey: \(passkey)  (type it on the phone \(record["phone"]?.stringValue ?? ""))")
                    } else if let name = record["paired"]?.stringValue {
                        print("paired \(name) (\(record["address"]?.stringValue ?? "?"))" + (record["admin"]?.boolValue == true ? ", admin" : ""))
                        paired = true
                    } else if let why = record["refused"]?.stringValue {
                        print("refused: \(why)")
                    } else if let why = record["failed"]?.stringValue {
                        print("failed: \(why)")
                    } else if let why = record["closed"]?.stringValue {
                        print("pairing window closed: \(why)")
                        return false
                    }
                    return true
                }
            }
            if !paired { throw ExitCode(1) }
        }
    }
}
