import ArgumentParser
import DoorCore

extension GaragePins {
    /// `list`: the used slots with their labels (master PIN).
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the stored PINs with their labels (master PIN).",
            discussion: "The master PIN itself (slot 0) is never listed.")
        @OptionGroup var daemon: DaemonOptions
        @Flag(help: "Print JSON: an array of {slot, pin, label, doors}.") var json = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let records = try daemon.records(.list)
                if json { printJSON(.array(records)); return }
                if records.isEmpty { print("no PINs stored besides the master; add one with `garage-pins add PIN --label NAME`"); return }
                // With PINs limited to some doors, a DOORS column (`all` for the others).
                let limited = records.contains { $0["doors"] != nil }
                var t = limited ? TextTable("SLOT", "PIN", "LABEL", "DOORS") : TextTable("SLOT", "PIN", "LABEL")
                for r in records {
                    let doors = r["doors"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? "all"
                    t.rows.append([r["slot"]?.intValue.map { String($0) } ?? "?", r["pin"]?.stringValue ?? "?", r["label"]?.stringValue ?? "-"]
                                  + (limited ? [doors] : []))
                }
                print(t.text, terminator: "")
            }
        }
    }
}
