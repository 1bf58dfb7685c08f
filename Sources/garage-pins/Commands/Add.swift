import ArgumentParser
import DoorCore

extension GaragePins {
    /// `add PIN [--label NAME]`: a new PIN in the first free slot.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a new PIN in the first free slot (master PIN).",
            discussion: "Prints the slot it went to. Give each person their own PIN and a label, so `log` and `who` can name them.")
        @OptionGroup var daemon: DaemonOptions
        @Argument(help: ArgumentHelp("The new PIN: 5 printable ASCII characters.", valueName: "PIN")) var newPIN: String
        @Option(help: ArgumentHelp("Who it is for (up to \(Labels.maxLength) bytes).", valueName: "NAME")) var label: String?

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard let p = PIN(newPIN) else { throw .usage("the new PIN must be exactly 5 printable ASCII characters without spaces, e.g. 24680") }
                if let label, let problem = Labels.problem(with: label) { throw .usage("--label: \(problem)") }
                let reply = try daemon.send(.local(.add(p, label: label?.isEmpty == true ? nil : label))).last ?? ""
                let slot = reply.split(separator: " ").last.map(String.init) ?? "?"
                print("stored in slot \(slot)" + (label.map { " (\($0))" } ?? ""))
            }
        }
    }
}
