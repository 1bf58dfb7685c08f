import ArgumentParser
import DoorCore

extension GaragePins {
    /// `light on|off`: `L=1` / `L=0`.
    struct Light: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Switch the garage light on (until switched off) or off.",
            discussion: "Any stored PIN; refused (ERR CMD) when garaged has no --light.")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var door: DoorOption
        @Argument(help: ArgumentHelp("on or off.", valueName: "on|off")) var state: String

        func validate() throws {
            guard state == "on" || state == "off" else { throw ValidationError("say on or off, not '\(state)'") }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                _ = try daemon.send(.light(on: state == "on"), door: door.choice)
                print("light \(state)" + door.suffix)
            }
        }
    }
}
