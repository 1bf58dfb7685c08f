import ArgumentParser
import DoorCore

extension GaragePins {
    /// `status [--follow]`: what the daemon believes, once or as it changes.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the door's state, the seconds to auto-close and the lockout.",
            discussion: "With --follow, print one line per change as it happens, until interrupted (Ctrl-C). Any stored PIN may ask.")
        @OptionGroup var daemon: DaemonOptions
        @Flag(help: "Keep printing each change as it happens.") var follow = false
        @Flag(help: "Print JSON (one object per line with --follow).") var json = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                if follow {
                    try daemon.follow(.status) { record in
                        print(json ? record.serialized : "\(WallTime.format(EventRecord.now()))  " + Status.line(record))
                    }
                    return
                }
                guard let record = try daemon.records(.status).first else { throw .refused("garaged sent no status") }
                if json { printJSON(record); return }
                var t = TextTable("WHAT", "NOW")
                t.rows = Status.rows(record)
                print(t.text, terminator: "")
            }
        }

        static func rows(_ r: JSONValue) -> [[String]] {
            [["door", r["door"]?.stringValue ?? "?"],
             ["auto-close", r["auto_close_s"]?.intValue.map { "in \($0) s" } ?? "none pending"],
             ["lockout", lockout(r)]]
        }

        /// Each channel with a lockout or unforgiven wrong PINs, or "none".
        static func lockout(_ r: JSONValue) -> String {
            var parts: [String] = []
            for channel in Throttle.Channel.allCases {
                guard let c = r["lockout"]?[channel.rawValue] else { continue }
                let locked = c["locked_s"]?.intValue ?? 0, failures = c["failures"]?.intValue ?? 0
                if locked > 0 {
                    parts.append("\(channel.rawValue) locked for \(locked) s (\(failures) wrong PINs)")
                } else if failures > 0 {
                    parts.append("\(channel.rawValue) \(failures) wrong PINs")
                }
            }
            return parts.isEmpty ? "none" : parts.joined(separator: "; ")
        }

        static func line(_ r: JSONValue) -> String {
            "door \(r["door"]?.stringValue ?? "?")  auto-close \(r["auto_close_s"]?.intValue.map { "in \($0) s" } ?? "-")  lockout \(lockout(r))"
        }
    }
}
