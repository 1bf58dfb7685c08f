import ArgumentParser
import DoorCore

extension GaragePins {
    /// `light on|off`: `L=1` / `L=0`.
    struct Light: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Switch the garage light on (until switched off) or off.",
            discussion: "Any stored PIN; refused when the door has no light wired (the setting light, e.g. light = gpiochip0:24 in garaged's config).")
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var door: DoorOption
        @Argument(help: ArgumentHelp("on or off.", valueName: "on|off")) var state: String

        func validate() throws {
            guard state == "on" || state == "off" else { throw ValidationError("say on or off, not '\(state)'") }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                // A light already so says it ("the light is already on").
                let answer = try daemon.ask(.light(on: state == "on"), door: door.choice, lacking: { Light.notWired(door.door) })
                print((answer.reason ?? "light \(state)") + door.suffix)
            }
        }

        /// Why `light on` was refused by a door without a light, and which setting wires one.
        static func notWired(_ door: String?) -> String {
            let wire: String
            if let door {
                let named = !door.allSatisfy(\.isNumber)
                wire = "door \(door) has no light wired; garaged switches a light only on the line its setting names: "
                    + "light = CHIP:LINE in its [door \(named ? door : "NAME")] section (e.g. light = gpiochip0:24), "
                    + "or --door.\(named ? door : "NAME").light"
            } else {
                wire = "the door has no light wired; garaged switches a light only on the line its setting names: "
                    + "light = CHIP:LINE in garaged's config (e.g. light = gpiochip0:24; with several doors, in the "
                    + "first door's section), or --light"
            }
            return "garaged refused: \(wire); then restart garaged (ERR CMD)"
        }
    }
}
