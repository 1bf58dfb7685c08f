import ArgumentParser
import DoorCore

/// `garaged`: the garage-door daemon, and `garaged doctor` to check a machine before it runs.
/// Its settings come from the catalog (`Catalog`), which also writes their part of `--help`.
struct GaragedCommand: ParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "garaged",
        abstract: "Opens a garage door from a phone or a shell: a relay on a GPIO line, a PIN table, the book's protocol.",
        usage: """
        garaged [--SETTING VALUE ...] [--door.NAME.SETTING VALUE ...] [--config FILE] [--print-advertising]
          garaged doctor [--SETTING VALUE ...] [--config FILE]
        """,
        discussion: """
        Every setting can also come from --config FILE (`key = value` lines, keys as the long \
        flags without dashes, e.g. `pulse-ms = 300`); a flag wins over the file. Without \
        --config, \(ConfigChoice.defaultPath) is read when it exists (\(ConfigChoice.environmentKey) \
        names another file, or none when empty). \
        The settings marked (per door) are one door's: without sections they are the one \
        door's; for several doors, each `[door NAME]` line in the file starts that door's \
        settings (the settings for all doors stay above the first section), and \
        --door.NAME.KEY VALUE (--door.NAME.no-KEY for an on/off one) sets door NAME's KEY from \
        the command line, adding the door when the file has no such section. NAME is 1 to 16 of \
        a-z, 0-9 and '-', not digits alone; the first door is the one the book's app opens. \
        The default relay is a simulated line that records each transition in a trace file. \
        `garaged doctor` takes the same settings and says what to fix before the first start.

        SETTINGS

        """ + Catalog.all.map(\.helpLine).joined(separator: "\n\n"),
        version: BuildInfo.version,
        subcommands: [RunDaemon.self, Doctor.self, SettingsReference.self],
        defaultSubcommand: RunDaemon.self
    )
}
