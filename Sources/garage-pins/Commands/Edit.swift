import ArgumentParser
import DoorCore

extension GaragePins {
    /// `edit SLOT [PIN] [--doors DOORS]`: the book's `E`, and which doors the slot's PIN may use.
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the PIN in a slot, or the doors it may use (master PIN); its label stays.")
        @OptionGroup var daemon: DaemonOptions
        @Argument(help: ArgumentHelp("The slot, as `list` shows it.", valueName: "SLOT")) var slot: Int
        @Argument(help: ArgumentHelp("The new PIN (none: only --doors changes).", valueName: "PIN")) var newPIN: String?
        @OptionGroup var doors: DoorsOption

        func validate() throws {
            if newPIN == nil && doors.doors == nil { throw ValidationError("give a new PIN, --doors, or both") }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard (1..<PinTable.maxCapacity).contains(slot) else { throw .usage("SLOT must be from 1 to \(PinTable.maxCapacity - 1) (slot 0, the master, is changed offline with `garage-pins master`)") }
                let p = try newPIN.map { text throws(CLIError) in
                    guard let p = PIN(text) else { throw .usage("the new PIN must be exactly 5 printable ASCII characters without spaces") }
                    return p
                }
                try doors.check(with: daemon)
                // The doors first: a refused door leaves the PIN as it was too.
                if case .some(let limit) = doors.limit {
                    _ = try daemon.send(.local(.doors(slot: slot, limit)))
                    print("slot \(slot) may use " + (limit?.joined(separator: ", ") ?? "every door"))
                }
                if let p {
                    _ = try daemon.send(.edit(slot: slot, pin: p))
                    print("slot \(slot) has a new PIN")
                }
            }
        }
    }
}
