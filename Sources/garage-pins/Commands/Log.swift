import ArgumentParser
import DoorCore
import DoorSystem

extension GaragePins {
    /// `log [--since TIME] [--follow]`: the garage's event history (master PIN).
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the event history: opens, closes, auto-closes, PIN changes, wrong PINs, lockouts, starts and stops (master PIN).",
            discussion: """
            Times are local. TIME is a date (2026-11-22), a date and time (2026-11-22T08:00, \
            '2026-11-22 08:00:30'), an age (90s, 30m, 1h, 2d, 1w), today or yesterday. With --follow, \
            print the history from TIME (none without --since) and then each event as it happens.
            """)
        @OptionGroup var daemon: DaemonOptions
        @Option(help: ArgumentHelp("Only events at or after TIME.", valueName: "TIME")) var since: String?
        @Flag(help: "Keep printing events as they happen, until interrupted.") var follow = false
        @Flag(help: "Print JSON (an array; one object per line with --follow).") var json = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                let from = try since.map { t throws(CLIError) in try parseSince(t) }
                if follow {
                    try daemon.follow(.log, since: from) { record in
                        guard let r = EventRecord(json: record) else { return }
                        print(json ? r.json.serialized : Log.line(r))
                    }
                    return
                }
                let records = try daemon.records(.log(since: from)).compactMap(EventRecord.init(json:))
                if json { printJSON(.array(records.map(\.json))); return }
                if records.isEmpty { print("no events" + (since.map { " since \($0)" } ?? "")); return }
                // With several doors, a column says which door each event is about.
                let doors = records.contains { $0.door != nil }
                var t = doors ? TextTable("TIME", "DOOR", "EVENT", "WHO", "SOURCE", "DETAIL") : TextTable("TIME", "EVENT", "WHO", "SOURCE", "DETAIL")
                for r in records { t.rows.append(Log.cells(r, door: doors)) }
                print(t.text, terminator: "")
            }
        }

        static func who(_ r: EventRecord) -> String {
            if let label = r.label { return label }
            if let slot = r.slot { return slot == 0 ? "master" : "slot \(slot)" }
            return "-"
        }

        static func cells(_ r: EventRecord, door: Bool = false) -> [String] {
            [WallTime.format(r.time)] + (door ? [r.door ?? "-"] : []) + [r.kind.rawValue, who(r), r.source, r.detail ?? ""]
        }

        static func line(_ r: EventRecord) -> String { cells(r, door: r.door != nil).joined(separator: "  ") }
    }
}

/// `--since` text to ms since the epoch, or a usage error that shows what is accepted.
func parseSince(_ text: String) throws(CLIError) -> Int64 {
    guard let ms = WallTime.parseSince(text, now: EventRecord.now()) else {
        throw .usage("--since \(text): give a date (2026-11-22), a date and time (2026-11-22T08:00), an age (30m, 1h, 2d), today or yesterday")
    }
    return ms
}
