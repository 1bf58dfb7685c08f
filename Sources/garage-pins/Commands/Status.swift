import ArgumentParser
import DoorCore
import DoorSystem

extension GaragePins {
    /// `status [--follow]`: what the daemon believes, once or as it changes.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show each door's state, how it is known, what is pending, faults and the lockout.",
            discussion: "With --follow, print one line per change as it happens, until interrupted (Ctrl-C). Any stored PIN may ask, and sees the doors it may use (the master PIN every door).")
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
                // One record per door the PIN may use, the first first; with several doors each
                // has its id and number.
                let records = try daemon.records(.status)
                guard let first = records.first else {
                    throw .refused("garaged showed this PIN no door: it may use none of garaged's doors now (its limit names only doors garaged no longer drives, or garaged cannot read its door access file); the master PIN sees every door")
                }
                let several = first["id"] != nil
                if json { printJSON(several ? .array(records) : first); return }
                for (i, record) in records.enumerated() {
                    if several { print((i == 0 ? "" : "\n") + Status.heading(record, number: i + 1)) }
                    var t = TextTable("WHAT", "NOW")
                    t.rows = Status.rows(record)
                    print(t.text, terminator: "")
                }
            }
        }

        static func rows(_ r: JSONValue) -> [[String]] {
            var rows = [["door", door(r)]]
            if let parts = r["parts"] { rows.append(["has", has(parts)]) }
            rows += [
                        ["auto-close", r["auto_close_s"]?.intValue.map { "in \($0) s" } ?? "none pending"]]
            if let interval = r["auto_close_interval_s"], interval != .null {
                rows[rows.count - 1][1] += " (every \(interval.intValue.map { "\($0) s" } ?? "?") open)"
            }
            if let hold = r["hold_s"]?.intValue { rows.append(["hold", "held open for \(hold / 60) min \(hold % 60) s more"]) }
            if let fault = r["fault"]?.stringValue { rows.append(["fault", fault]) }
            if r["warning"]?.boolValue == true { rows.append(["warning", "on"]) }
            if let light = r["light"]?.boolValue { rows.append(["light", light ? "on" : "off"]) }
            rows += openerRows(r["opener"])
            if let open = r["open_s"]?.intValue { rows.append(["open for", "\(open / 60) min \(open % 60) s"]) }
            if let opener = r["last_opened_by"]?.stringValue { rows.append(["opened by", opener]) }
            rows.append(["lockout", lockout(r)])
            if let b = r["bluetooth"]?["detail"]?.stringValue { rows.append(["bluetooth", b]) }
            if let m = r["mqtt"], let state = m["state"]?.stringValue {
                var text = "\(state) \(state == "connected" ? "to" : "—") \(m["broker"]?.stringValue ?? "?")"
                if let since = m["since"]?.intValue { text += " since \(WallTime.format(since))" }
                if state != "connected", let e = m["last_error"]?.stringValue { text += "; last error: \(e)" }
                rows.append(["mqtt", text])
            }
            return rows
        }

        /// The door's state, and how it is known: from its opener (or that the opener is silent),
        /// sensed (what the switches read) or believed.
        static func door(_ r: JSONValue) -> String {
            let state = r["door"]?.stringValue ?? "?"
            switch r["mode"]?.stringValue {
            case "opener": return state + " (" + openerSays(r["opener"]) + ")"
            case "sensed": break
            case "believed": return state + " (believed: no sensors)"
            default: return state
            }
            guard let sensors = r["sensors"] else { return state }
            let reads = [("closed", sensors["closed"]), ("open", sensors["open"])].compactMap { name, v -> String? in
                v?.boolValue.map { "\(name) switch \($0 ? "active" : "inactive")" }
            }
            return state + " (sensed: " + reads.joined(separator: ", ") + ")"
        }

        /// What the door has, from the record's `parts` (its table of parts), in garaged's words.
        static func has(_ parts: JSONValue) -> String {
            guard case .object(let members) = parts else { return "?" }
            return DoorCapabilities.words(members.map { ($0.0, $0.1.stringValue ?? "") })
        }

        /// What the opener says of the parts it has: only those its record carries.
        static func openerRows(_ opener: JSONValue?) -> [[String]] {
            guard let opener else { return [] }
            var rows: [[String]] = []
            // An auto door's: how its protocol was found, or what the search tries now.
            if let found = opener["found"]?.stringValue { rows.append(["protocol", found]) }
            if let locked = opener["remotes_locked"] { rows.append(["remotes", locked.boolValue.map { $0 ? "locked" : "unlocked" } ?? "not said yet"]) }
            if let motion = opener["motion"]?.boolValue { rows.append(["motion", motion ? "seen" : "none"]) }
            if let openings = opener["openings"] { rows.append(["openings", openings.intValue.map(String.init) ?? "not said yet"]) }
            if let battery = opener["battery"]?.stringValue { rows.append(["battery", battery]) }
            return rows
        }

        /// How an opener's door is known: from the opener, or not yet or no longer, since the
        /// opener has not said or does not answer (and what to check then).
        static func openerSays(_ opener: JSONValue?) -> String {
            let kind = opener?["protocol"]?.stringValue ?? "?"
            let title = OpenerKind.named(kind)?.title ?? (kind == "auto" ? "Security+ (auto)" : kind)
            let name = "the \(title) opener on \(opener?["device"]?.stringValue ?? "?")"
            switch opener?["state"]?.stringValue {
            case "connected": return "from " + name
            case "searching": return "unconfirmed: garaged is still searching for which wire \(name) speaks (\(opener?["found"]?.stringValue ?? "?"))"
            case "silent": return "unconfirmed: \(name) is silent; check its wiring to the Pi, the level circuit and the opener's power"
            default: return "unconfirmed: waiting for \(name) to say where the door is"
            }
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

        /// A door's heading with several doors: `door 2: gate (Front gate)`; `number` when the
        /// record has none (a garaged before the records had one).
        static func heading(_ r: JSONValue, number: Int) -> String {
            let number = r["number"]?.intValue.map(Int.init) ?? number
            let id = r["id"]?.stringValue ?? String(number), name = r["name"]?.stringValue ?? id
            return "door \(number): \(id)" + (name == id ? "" : " (\(name))")
        }

        static func line(_ r: JSONValue) -> String {
            var text = (r["id"]?.stringValue.map { "[\($0)] " } ?? "") + "door \(r["door"]?.stringValue ?? "?")  auto-close \(r["auto_close_s"]?.intValue.map { "in \($0) s" } ?? "-")"
            if let fault = r["fault"]?.stringValue { text += "  fault \(fault)" }
            if r["warning"]?.boolValue == true { text += "  warning on" }
            if let hold = r["hold_s"]?.intValue { text += "  held \(hold) s" }
            return text + "  lockout \(lockout(r))"
        }
    }
}
