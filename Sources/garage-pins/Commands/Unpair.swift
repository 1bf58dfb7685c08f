import ArgumentParser
import DoorCore

extension GaragePins {
    /// `unpair LABEL`: forgets a phone at once.
    struct Unpair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget a paired phone: its key leaves the file and the kernel, its link drops (master PIN).",
            discussion: "From then on it cannot open the garage until it is paired again.")
        @OptionGroup var daemon: DaemonOptions
        @Argument(help: ArgumentHelp("The phone's label, as `phones` shows it.", valueName: "LABEL")) var label: String

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                if label.isEmpty { throw .usage("LABEL: give the phone's label, as garage-pins phones shows it") }
                if let problem = Labels.problem(with: label) { throw .usage("LABEL: \(problem)") }
                _ = try daemon.send(.local(.unpair(label)))
                print("unpaired \(label)")
            }
        }
    }
}
