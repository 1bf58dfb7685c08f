import ArgumentParser
import DoorCore

extension GaragePins {
    /// `auto-close SECONDS`: `C=<seconds>`.
    struct AutoClose: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "auto-close",
            abstract: "Set how long the door stays open before it closes by itself (0 turns it off; master PIN).",
            discussion: "As the book's app does with C=<seconds>: kept across restarts beside the table, and it wins over garaged's auto-close-s from then on.")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var door: DoorOption
        @Argument(help: ArgumentHelp("Seconds, 0-86400 (0: never).", valueName: "SECONDS")) var seconds: Int

        func validate() throws {
            guard DoorTiming.autoCloseRange.contains(seconds) else { throw ValidationError("SECONDS is 0 to 86400, not \(seconds)") }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                _ = try daemon.send(.closeAfter(seconds: seconds), door: door.choice)
                print((seconds == 0 ? "auto-close off" : "auto-close after \(seconds) s open") + door.suffix)
            }
        }
    }
}
