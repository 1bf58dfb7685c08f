import ArgumentParser
import DoorCore
import DoorSystem

extension GaragePins {
    /// `phones`: the bonded phones.
    struct Phones: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the phones paired over Bluetooth (master PIN).",
            discussion: "Their keys stay in garaged's bonds file and are never shown.")
        @OptionGroup var daemon: DaemonOptions
        @Flag(help: "Print JSON: an array of {label, admin, address, private_address, since, seen}.") var json = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let records = try daemon.records(.phones)
                if json { printJSON(.array(records)); return }
                if records.isEmpty { print("no phones paired; pair one with `garage-pins pair --label NAME`"); return }
                var t = TextTable("LABEL", "ADMIN", "ADDRESS", "PAIRED", "LAST SEEN")
                for r in records {
                    t.add(r["label"]?.stringValue ?? "?", r["admin"]?.boolValue == true ? "yes" : "no",
                          (r["address"]?.stringValue ?? "?") + (r["private_address"]?.boolValue == true ? " (private)" : ""),
                          r["since"]?.intValue.map { WallTime.format($0) } ?? "?", r["seen"]?.intValue.map { WallTime.format($0) } ?? "never")
                }
                print(t.text, terminator: "")
            }
        }
    }
}
