/// The system garaged runs on, from /etc/os-release and the machine's architecture, and what
/// an owner needs to know about it: the arm64 package is built with Raspberry Pi OS trixie's
/// (Debian 13's) own Swift and needs its libc6 (2.38 or later) and libgpiod3, so a bookworm
/// (Debian 12) Pi cannot install it, however well a garaged built there runs.
public struct SystemRelease: Sendable, Equatable {
    /// `PRETTY_NAME` ("Debian GNU/Linux 13 (trixie)"), or NAME and VERSION when it is missing.
    public var name: String
    /// `ID` and `ID_LIKE`: debian, raspbian, ubuntu...
    public var family: [String]
    /// `VERSION_ID`'s major number: 12 for bookworm, 13 for trixie; nil when not given.
    public var major: Int?
    /// `VERSION_CODENAME`: bookworm, trixie.
    public var codename: String?
    /// `uname -m`: aarch64, x86_64, armv7l.
    public var machine: String

    /// The first Debian release the arm64 package installs on (trixie).
    public static let packageRelease = 13

    /// Reads os-release's `KEY=value` lines (values plain or quoted); nil `text`: no such file.
    public init(osRelease text: String?, machine: String) {
        var fields: [String: String] = [:]
        for line in (text ?? "").split(separator: "\n") {
            guard let eq = line.firstIndex(of: "="), !line.hasPrefix("#") else { continue }
            var value = Substring(line[line.index(after: eq)...])
            if value.count >= 2, let q = value.first, q == "\"" || q == "'", value.last == q {
                value = value.dropFirst().dropLast()
            }
            fields[String(line[..<eq])] = String(value)
        }
        name = fields["PRETTY_NAME"] ?? [fields["NAME"], fields["VERSION"]].compactMap { $0 }.joined(separator: " ")
        if name.isEmpty { name = text == nil ? "an unknown system (no os-release)" : "an unnamed system" }
        family = ([fields["ID"]] + (fields["ID_LIKE"]?.split(separator: " ").map(String.init) ?? [])).compactMap { $0 }
        major = fields["VERSION_ID"].flatMap { Int($0.prefix { $0.isNumber }) }
        codename = fields["VERSION_CODENAME"]
        self.machine = machine
    }

    public var isDebian: Bool { family.contains("debian") || family.contains("raspbian") }

    /// What `garaged doctor` says: a warning when the system is one the package cannot be
    /// installed on, or one garaged was never built and tested for; otherwise what it is.
    public var advice: (warn: Bool, text: String) {
        let what = "\(name), \(machine)"
        switch machine {
        case "aarch64", "arm64":
            guard isDebian, let major else {
                return (false, "\(what): garaged's arm64 package is for Raspberry Pi OS (64-bit) trixie; here, build from source (docs/raspberry-pi.md)")
            }
            if major < SystemRelease.packageRelease {
                let release = codename.map { "\($0), Debian \(major)" } ?? "Debian \(major)"
                return (true, "\(what): garaged's arm64 package is built for Raspberry Pi OS (64-bit) trixie (Debian 13) and needs libc6 2.38 or later and libgpiod3, so it will not install on \(release); this garaged was built here, so it runs, but to install or upgrade it from the package move this Pi to trixie first (docs/raspberry-pi.md, \"Which Raspberry Pi OS\")")
            }
            return (false, "\(what): the release garaged's arm64 package is built for")
        case "x86_64", "amd64":
            return (false, what)
        default:
            return (true, "\(what): garaged is built and tested for 64-bit systems only (aarch64, x86_64); on a Raspberry Pi install Raspberry Pi OS (64-bit) trixie (docs/raspberry-pi.md)")
        }
    }
}
