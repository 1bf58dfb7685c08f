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
