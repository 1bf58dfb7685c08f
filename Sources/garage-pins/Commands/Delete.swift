import ArgumentParser
import DoorCore

extension GaragePins {
    /// `delete SLOT`: the book's `D`; the label goes with it.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget the PIN in a slot, and its label (master PIN).")
        @OptionGroup var daemon: DaemonOptions
        @Argument(help: ArgumentHelp("The slot, as `list` shows it.", valueName: "SLOT")) var slot: Int

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard (1..<PinTable.maxCapacity).contains(slot) else { throw .usage("SLOT must be from 1 to \(PinTable.maxCapacity - 1); see `garage-pins list`") }
                _ = try daemon.send(.delete(slot: slot))
                print("slot \(slot) is free")
            }
        }
    }
}
