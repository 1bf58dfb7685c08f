import ArgumentParser
import DoorCore

extension GaragePins {
    /// `edit SLOT PIN`: the book's `E`.
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the PIN in a slot (master PIN); its label stays.")
        @OptionGroup var daemon: DaemonOptions
        @Argument(help: ArgumentHelp("The slot, as `list` shows it.", valueName: "SLOT")) var slot: Int
        @Argument(help: ArgumentHelp("The new PIN.", valueName: "PIN")) var newPIN: String

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard (1..<PinTable.maxCapacity).contains(slot) else { throw .usage("SLOT must be from 1 to \(PinTable.maxCapacity - 1) (slot 0, the master, is changed offline with `garage-pins master`)") }
                guard let p = PIN(newPIN) else { throw .usage("the new PIN must be exactly 5 printable ASCII characters without spaces") }
                _ = try daemon.send(.edit(slot: slot, pin: p))
                print("slot \(slot) has a new PIN")
            }
        }
    }
}
