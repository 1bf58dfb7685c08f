import ArgumentParser
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

extension GaragePins {
    /// `master`: changes the master PIN offline (never over the protocol, as on the Arduino).
    struct Master: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the master PIN of a table (offline: stop garaged first).",
            discussion: "Asks for the old master PIN (or takes --old), unless --force is given by someone who can write the file anyway. The new PIN comes from --new or is asked twice on a terminal.")
        @Option(help: ArgumentHelp("The table file.", valueName: "FILE")) var pins: String
        @Option(help: ArgumentHelp("The current master PIN.", valueName: "PIN")) var old: String?
        @Option(name: .customLong("new"), help: ArgumentHelp("The new master PIN.", valueName: "PIN")) var newPIN: String?
        @Flag(help: "Do not ask for the old PIN (you must be able to write FILE).") var force = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let file = OfflineTable(path: pins)
                try file.withLock { () throws(CLIError) in
                    var table = try file.load()
                    if force {
                        guard access(pins, W_OK) == 0 else { throw .file("--force needs write access to \(pins); run as its owner (sudo)") }
                    } else {
                        guard let oldText = old ?? (isatty(0) == 1 ? PINPrompt.read("Current master PIN: ") : nil) else {
                            throw .usage("give the current master PIN with --old PIN (or run on a terminal to be asked), or --force as the file's owner")
                        }
                        guard let oldPIN = PIN(oldText), table.master.constantTimeEquals(oldPIN) else {
                            throw .refused("that is not the current master PIN of \(pins); nothing changed")
                        }
                    }
                    var newText = newPIN
                    if newText == nil, isatty(0) == 1 {
                        newText = PINPrompt.read("New master PIN: ")
                        guard PINPrompt.read("Again: ") == newText else { throw .usage("the two new PINs differ; nothing changed") }
                    }
                    guard let newText else { throw .usage("give the new master PIN with --new PIN (or run on a terminal to be asked)") }
                    guard let p = PIN(newText) else { throw .usage("the new master PIN must be exactly 5 printable ASCII characters without spaces") }
                    do { try table.setMaster(p) } catch {
                        throw .refused("that PIN is already stored in slot \(table.slot(of: p) ?? 0); choose another")
                    }
                    do { try PinTableFile(path: pins).save(table) } catch { throw .file("\(error)") }
                }
                print("master PIN of \(pins) changed; start garaged again to use it")
            }
        }
    }
}
