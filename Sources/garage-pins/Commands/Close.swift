import ArgumentParser
import DoorCore

extension GaragePins {
    /// `close`: `O=0`.
    struct Close: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close the door (presses only if it is open or stopped; after the warning when one is wired).")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var door: DoorOption

        func run() throws {
            try runReportingErrors { () throws(CLIError) in print(try daemon.ask(.close, door: door.choice).said) }
        }
    }
}
