import ArgumentParser
import DoorCore

extension GaragePins {
    /// `remotes lock|unlock`: `Lremotes lock` / `Lremotes unlock`, the opener's own LOCK.
    struct Remotes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lock or unlock the opener's own remotes and keypads (master PIN).",
            discussion: """
            For a door driven by a Security+ 2.0 opener (opener = secplus2:DEVICE): while locked, \
            the opener ignores its radio remotes and keypads until unlocked; its wall button still \
            works, and so do garaged's own requests. `status` shows the opener's word \
            (remotes_locked) and `log` who asked. A door on a relay has no opener to ask: refused.
            """)
        @OptionGroup var daemon: DaemonOptions
        @OptionGroup var door: DoorOption
        @Argument(help: ArgumentHelp("lock or unlock.", valueName: "lock|unlock")) var state: String

        func validate() throws {
            guard state == "lock" || state == "unlock" else { throw ValidationError("say lock or unlock, not '\(state)'") }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                _ = try daemon.send(.local(.remotes(locked: state == "lock")), door: door.choice, lacking: {
                    "garaged refused: \(door.door.map { "door \($0)" } ?? "the door") has no opener whose remotes "
                        + "could be locked; only a door with opener = secplus2:DEVICE in garaged's config has (ERR CMD)"
                })
                print("remotes \(state == "lock" ? "locked" : "unlocked")" + door.suffix)
            }
        }
    }
}
