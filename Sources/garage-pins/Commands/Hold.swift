import ArgumentParser
import DoorCore

extension GaragePins {
    /// `hold MINUTES`: `H=<minutes>`.
    struct Hold: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep the door from closing automatically for MINUTES (0 ends a hold).",
            discussion: "Any stored PIN. A close being warned is called off. At most a day (1440 minutes).")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var door: DoorOption
        @Argument(help: ArgumentHelp("How long, 0-1440 (0 ends the hold).", valueName: "MINUTES")) var minutes: Int

        func validate() throws {
            guard (0...Door.maxHoldMinutes).contains(minutes) else { throw ValidationError("MINUTES is 0 to \(Door.maxHoldMinutes), not \(minutes)") }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                _ = try daemon.send(.hold(minutes: minutes), door: door.choice)
                print((minutes == 0 ? "hold ended" : "held open for \(minutes) min") + door.suffix)
            }
        }
    }
}
