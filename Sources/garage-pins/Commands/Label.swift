import ArgumentParser
import DoorCore

extension GaragePins {
    /// `label SLOT NAME`: names a slot (an empty NAME clears it).
    struct Label: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Name the person a slot's PIN belongs to (master PIN); '' clears it.")
        @OptionGroup var daemon: DaemonOptions
        @Argument(help: ArgumentHelp("The slot, as `list` shows it.", valueName: "SLOT")) var slot: Int
        @Argument(help: ArgumentHelp("The name (up to \(Labels.maxLength) bytes).", valueName: "NAME")) var name: String

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard (1..<PinTable.maxCapacity).contains(slot) else { throw .usage("SLOT must be from 1 to \(PinTable.maxCapacity - 1); see `garage-pins list`") }
                if let problem = Labels.problem(with: name) { throw .usage("NAME: \(problem)") }
                _ = try daemon.send(.local(.label(slot: slot, name: name.isEmpty ? nil : name)))
                print(name.isEmpty ? "slot \(slot) has no label" : "slot \(slot) is \(name)")
            }
        }
    }
}
