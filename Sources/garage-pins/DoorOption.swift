import ArgumentParser
import DoorCore

/// `--door NAME|NUMBER` for the commands about one door (open, close, hold, light,
/// auto-close): without it, the first door, as the book's app means.
struct DoorOption: ParsableArguments {
    @Option(help: ArgumentHelp("The door: its name in garaged's config ([door NAME]) or its number, 1 the first (default: the first).",
                               valueName: "DOOR"))
    var door: String?

    func validate() throws {
        if let door, DoorChoice(Array(door.utf8)) == nil {
            throw ValidationError("--door \(door): give a door's name (a-z, 0-9, '-', at most 16) or its number, e.g. --door gate or --door 2")
        }
    }

    /// The door as a request names it; nil: the first.
    var choice: DoorChoice? { door.flatMap { DoorChoice(Array($0.utf8)) } }

    /// How the result names the door: "" for the first, " (gate)" otherwise.
    var suffix: String { door.map { " (door \($0))" } ?? "" }
}

/// `--doors a,b|all` for `add` and `edit`: which doors a PIN may use (with several doors).
struct DoorsOption: ParsableArguments {
    @Option(help: ArgumentHelp("Limit the PIN to these doors (names from garaged's config, comma-separated), or `all`; the master PIN always reaches every door.",
                               valueName: "DOORS"))
    var doors: String?

    func validate() throws {
        if let doors, doors != "all", DoorAccess.names(doors) == nil {
            throw ValidationError("--doors \(doors): give door names (a-z, 0-9, '-') separated by commas, e.g. --doors left,shed, or all")
        }
    }

    /// The limit to set: `.some(nil)` for every door, nil when `--doors` was not given.
    var limit: [String]?? {
        guard let doors else { return nil }
        return .some(doors == "all" ? nil : DoorAccess.names(doors))
    }

    /// Refuses a door garaged does not drive before anything is changed.
    func check(with daemon: DaemonOptions) throws(CLIError) {
        guard case .some(.some(let names)) = limit else { return }
        let known = try daemon.records(.status).compactMap { $0["id"]?.stringValue }
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw .usage("--doors: garaged has no door \(unknown)" + (known.isEmpty ? " (it drives one door, without [door] sections)" : " (its doors: \(known.joined(separator: ", ")))"))
        }
    }
}
