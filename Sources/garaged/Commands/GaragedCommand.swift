import ArgumentParser
import DoorCore

/// `garaged`: the garage-door daemon, and `garaged doctor` to check a machine before it runs.
/// Its settings come from the catalog (`Catalog`), which also writes their part of `--help`.
@main
struct GaragedCommand: ParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "garaged",
        abstract: "Opens a garage door from a phone or a shell: a relay on a GPIO line, a PIN table, the book's protocol.",
        usage: """
        garaged [--SETTING VALUE ...] [--config FILE] [--print-advertising]
          garaged doctor [--SETTING VALUE ...] [--config FILE]
        """,
        discussion: """
        Every setting can also come from --config FILE (`key = value` lines, keys as the long \
        flags without dashes, e.g. `pulse-ms = 300`); a flag wins over the file. \
        The default relay is a simulated line that records each transition in a trace file. \
        `garaged doctor` takes the same settings and says what to fix before the first start.

        SETTINGS

        """ + Catalog.all.map(\.helpLine).joined(separator: "\n\n"),
        version: BuildInfo.version,
        subcommands: [RunDaemon.self, Doctor.self],
        defaultSubcommand: RunDaemon.self
    )
}
