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
        @Flag(help: "Print JSON: an array of {who, slot, opens, first, last}, and doors with several.") var json = false

        func validate() throws {
            if today && since != nil { throw ValidationError("give --today or --since, not both") }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let from = today ? WallTime.localMidnight(of: EventRecord.now()) : try since.map { t throws(CLIError) in try parseSince(t) }
                let records = try daemon.records(.log(since: from)).compactMap(EventRecord.init(json:))
                struct Row { var who: String; var slot: Int?; var opens = 0; var first: Int64; var last: Int64; var doors: [String] = [] }
                var rows: [Row] = []
                for r in records where r.kind == .open && (r.detail == "pressed" || r.detail == "OK") {
                    let who = Log.who(r)
                    let i = rows.firstIndex { $0.who == who } ?? {
                        rows.append(Row(who: who, slot: r.slot, first: r.time, last: r.time))
                        return rows.count - 1
                    }()
                    rows[i].opens += 1
                    rows[i].last = r.time
                    if let door = r.door, !rows[i].doors.contains(door) { rows[i].doors.append(door) }
                }
                if json {
                    printJSON(.array(rows.map { row in
                        .object([("who", .string(row.who)), ("slot", row.slot.map { .number(Int64($0)) } ?? .null),
                                 ("opens", .number(Int64(row.opens))), ("first", .number(row.first)), ("last", .number(row.last))]
                                + (row.doors.isEmpty ? [] : [("doors", .array(row.doors.map { .string($0) }))]))
                    }))
                    return
                }
                if rows.isEmpty { print("nobody opened the door" + (today ? " today" : since.map { " since \($0)" } ?? "")); return }
                // With several doors, which doors each opened.
                let doors = rows.contains { !$0.doors.isEmpty }
                var t = doors ? TextTable("WHO", "SLOT", "OPENS", "DOORS", "FIRST", "LAST") : TextTable("WHO", "SLOT", "OPENS", "FIRST", "LAST")
                for r in rows {
                    t.rows.append([r.who, r.slot.map { String($0) } ?? "-", String(r.opens)] + (doors ? [r.doors.joined(separator: ",")] : [])
                                  + [WallTime.format(r.first), WallTime.format(r.last)])
                }
                print(t.text, terminator: "")
            }
        }
    }
}
