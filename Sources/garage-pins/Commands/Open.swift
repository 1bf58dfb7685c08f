import ArgumentParser
import DoorCore

extension GaragePins {
    /// `open`: the book's `O=1`.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open the door (presses only if it is closed or stopped, as sensed or believed).")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var door: DoorOption

        func run() throws {
            try runReportingErrors { () throws(CLIError) in print(try daemon.ask(.open, door: door.choice).said) }
        }
    }
}
