import ArgumentParser
import DoorCore

extension GaragePins {
    /// `unlock [remote|local]`: ends a lockout a stranger's guessing started.
    struct Unlock: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End a PIN lockout and forget the wrong PINs, on one channel or all (master PIN).",
            discussion: """
            After 5 wrong PINs a channel is locked, longer with each further wrong PIN (up to an \
            hour); only time forgives wrong PINs (one an hour), so a correct PIN does not. When the \
            family's phones are locked out by someone guessing over Bluetooth, this lets them in \
            again; `status` shows each channel's lockout and `log` who caused it. CHANNEL is \
            remote (Bluetooth) or local (other users of this machine); default: both. The owner \
            at the shell (root, or garaged's own user) may use any stored PIN.
            """)
        @OptionGroup var daemon: DaemonOptions
        @Argument(help: ArgumentHelp("remote or local (default: both).", valueName: "CHANNEL"))
        var channel: String?

        func validate() throws {
            if let channel, Throttle.Channel(rawValue: channel) == nil {
                throw ValidationError("CHANNEL is remote or local, not '\(channel)'")
            }
        }

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                _ = try daemon.send(.local(.unlock(channel.flatMap(Throttle.Channel.init(rawValue:)))))
                print("unlocked \(channel.map { "the \($0) channel" } ?? "every channel")")
            }
        }
    }
}
