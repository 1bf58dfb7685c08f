import ArgumentParser
import DoorCore
import DoorSystem

extension GaragePins {
    /// `who [--today|--since TIME]`: the in/out board, from the garage's own events.
    struct Who: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Who opened the door, by label, with the first and last time (master PIN).",
            discussion: "Counts successful open requests in the event history (pressed, or the door was already open or opening). Without --today or --since, the whole history.")
        @OptionGroup var daemon: DaemonOptions
        @Flag(help: "Only since midnight.") var today = false
        @Option(help: ArgumentHelp("Only since TIME (as for `log`).", valueName: "TIME")) var since: String?
        @Flag(help: "Print JSON: an array of {who, slot, opens, first, last}.") var json = false

        func validate() throws {
            if today && since != nil { throw ValidationError("give --today or --since, not both") }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let from = today ? WallTime.localMidnight(of: EventRecord.now()) : try since.map { t throws(CLIError) in try parseSince(t) }
                let records = try daemon.records(.log(since: from)).compactMap(EventRecord.init(json:))
                struct Row { var who: String; var slot: Int?; var opens = 0; var first: Int64; var last: Int64 }
                var rows: [Row] = []
                for r in records where r.kind == .open && (r.detail == "pressed" || r.detail == "OK") {
                    let who = Log.who(r)
                    if let i = rows.firstIndex(where: { $0.who == who }) {
                        rows[i].opens += 1
                        rows[i].last = r.time
                    } else {
                        rows.append(Row(who: who, slot: r.slot, opens: 1, first: r.time, last: r.time))
                    }
                }
                if json {
                    printJSON(.array(rows.map { .object([("who", .string($0.who)), ("slot", $0.slot.map { .number(Int64($0)) } ?? .null),
                                                         ("opens", .number(Int64($0.opens))), ("first", .number($0.first)), ("last", .number($0.last))]) }))
                    return
                }
                if rows.isEmpty { print("nobody opened the door" + (today ? " today" : since.map { " since \($0)" } ?? "")); return }
                var t = TextTable("WHO", "SLOT", "OPENS", "FIRST", "LAST")
                for r in rows { t.add(r.who, r.slot.map { String($0) } ?? "-", String(r.opens), WallTime.format(r.first), WallTime.format(r.last)) }
                print(t.text, terminator: "")
            }
        }
    }
}
