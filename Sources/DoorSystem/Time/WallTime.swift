import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock times for people: events are stored in milliseconds since the epoch and shown in
/// local time; `--since` takes what a person types (`2026-11-22`, `2026-11-22T08:00`,
/// `2026-11-22 08:00:30`, `1h`, `30m`, `2d`, `today`, `yesterday`).
public enum WallTime {
    /// How a wall-clock time is written: the history's `2026-11-22 14:03:05`, the log's
    /// `2026-11-22T14:03:05.123`, or the time of day alone, `14:03:05`. The one formatter of
    /// local time: every reader of garaged's output sees the same.
    public enum Style: Sendable {
        case dateTime, logStamp, timeOfDay
    }

    /// `ms` (since the epoch) in the local time zone, in `style`. Written digit by digit into
    /// one buffer, not interpolated: the log stamps every line with it.
    public static func format(_ ms: Int64, _ style: Style = .dateTime) -> String {
        var t = time_t(ms / 1000)
        var tmv = tm()
        localtime_r(&t, &tmv)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        func two(_ v: Int32) {
            if v >= 0 && v < 100 {
                out.append(0x30 + UInt8(v / 10))
                out.append(0x30 + UInt8(v % 10))
            } else {
                out += String(v).utf8
            }
        }
        func time() {
            two(tmv.tm_hour)
            out.append(UInt8(ascii: ":"))
            two(tmv.tm_min)
            out.append(UInt8(ascii: ":"))
            two(tmv.tm_sec)
        }
        if style != .timeOfDay {
            out += String(tmv.tm_year + 1900).utf8
            out.append(UInt8(ascii: "-"))
            two(tmv.tm_mon + 1)
            out.append(UInt8(ascii: "-"))
            two(tmv.tm_mday)
            out.append(style == .logStamp ? UInt8(ascii: "T") : UInt8(ascii: " "))
        }
        time()
        if style == .logStamp {
            let millis = Int(((ms % 1000) + 1000) % 1000)
            out.append(UInt8(ascii: "."))
            out.append(0x30 + UInt8(millis / 100))
            out.append(0x30 + UInt8(millis / 10 % 10))
            out.append(0x30 + UInt8(millis % 10))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The instant `text` names, relative to `now` (ms since the epoch); nil when it names none.
    public static func parseSince(_ text: String, now: Int64) -> Int64? {
        let t = text.lowercased()
        if t == "today" || t == "yesterday" {
            let midnight = localMidnight(of: now)
            return t == "today" ? midnight : localMidnight(of: midnight - 12 * 3_600_000)
        }
        if let unit = t.last, let n = Int64(t.dropLast()), n >= 0, t.count > 1 {
            let scale: Int64?
            switch unit {
            case "s": scale = 1000
            case "m": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            case "w": scale = 7 * 86_400_000
            default: scale = nil
            }
            if let scale { return now - n * scale }
        }
        return parseDate(t)
    }

    /// Midnight (local) of the day `ms` falls on.
    public static func localMidnight(of ms: Int64) -> Int64 {
        var t = time_t(ms / 1000)
        var tmv = tm()
        localtime_r(&t, &tmv)
        tmv.tm_hour = 0
        tmv.tm_min = 0
        tmv.tm_sec = 0
        tmv.tm_isdst = -1
        return Int64(mktime(&tmv)) * 1000
    }

    /// `YYYY-MM-DD`, then optionally `T` or a space and `HH:MM` or `HH:MM:SS`, local time.
    static func parseDate(_ t: String) -> Int64? {
        let parts = t.split(whereSeparator: { $0 == "t" || $0 == " " })
        guard (1...2).contains(parts.count) else { return nil }
        let date = parts[0].split(separator: "-").compactMap { Int32($0) }
        guard date.count == 3, parts[0].split(separator: "-").count == 3,
              (1...12).contains(date[1]), (1...31).contains(date[2]), date[0] >= 1970 else { return nil }
        var clock: [Int32] = [0, 0, 0]
        if parts.count == 2 {
            let c = parts[1].split(separator: ":").map { Int32($0) }
            guard (2...3).contains(c.count), c.allSatisfy({ $0 != nil }) else { return nil }
            for (i, v) in c.enumerated() { clock[i] = v! }
            guard (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...59).contains(clock[2]) else { return nil }
        }
        var tmv = tm()
        tmv.tm_year = date[0] - 1900
        tmv.tm_mon = date[1] - 1
        tmv.tm_mday = date[2]
        tmv.tm_hour = clock[0]
        tmv.tm_min = clock[1]
        tmv.tm_sec = clock[2]
        tmv.tm_isdst = -1
        let secs = mktime(&tmv)
        return secs == -1 ? nil : Int64(secs) * 1000
    }
}
