import ArgumentParser
import DoorCore

extension GaragePins {
    /// `add PIN [--label NAME] [--doors DOORS]`: a new PIN in the first free slot.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a new PIN in the first free slot (master PIN).",
            discussion: "Prints the slot it went to. Give each person their own PIN and a label, so `log` and `who` can name them.")
        @OptionGroup var daemon: DaemonOptions
        @Argument(help: ArgumentHelp("The new PIN: 5 printable ASCII characters.", valueName: "PIN")) var newPIN: String
        @Option(help: ArgumentHelp("Who it is for (up to \(Labels.maxLength) bytes).", valueName: "NAME")) var label: String?
        @OptionGroup var doors: DoorsOption

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard let p = PIN(newPIN) else { throw .usage("the new PIN must be exactly 5 printable ASCII characters without spaces, e.g. 24680") }
                if let label, let problem = Labels.problem(with: label) { throw .usage("--label: \(problem)") }
                try doors.check(with: daemon)
                let reply = try daemon.send(.local(.add(p, label: label?.isEmpty == true ? nil : label))).last ?? ""
                let slot = reply.split(separator: " ").last.map(String.init) ?? "?"
                if case .some(let limit) = doors.limit, let n = Int(slot) {
                    do throws(CLIError) { _ = try daemon.send(.local(.doors(slot: n, limit))) } catch {
                        // Not left reaching every door: the PIN goes again, so nothing changed.
                        _ = try? daemon.send(.delete(slot: n))
                        throw error
                    }
                }
                print("stored in slot \(slot)" + (label.map { " (\($0))" } ?? "") + (doors.limit?.map { " for \($0.joined(separator: ", "))" } ?? ""))
            }
        }
    }
}
