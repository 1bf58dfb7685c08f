import ArgumentParser
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// `garaged`: the garage-door daemon. Its settings come from the catalog (`Catalog`), which
/// also writes their part of `--help`.
@main
struct GaragedCommand: ParsableCommand {
    /// The version `--version` prints and Home Assistant shows.
    static let version = "0.3.0"

    static let configuration = CommandConfiguration(
        commandName: "garaged",
        abstract: "Opens a garage door from a phone or a shell: a relay on a GPIO line, a PIN table, the book's protocol.",
        usage: "garaged [--SETTING VALUE ...] [--config FILE] [--print-advertising]",
        discussion: """
        Every setting can also come from --config FILE (`key = value` lines, keys as the long \
        flags without dashes, e.g. `pulse-ms = 300`); a flag wins over the file. \
        The default relay is a simulated line that records each transition in a trace file.

        SETTINGS

        """ + Catalog.all.map(\.helpLine).joined(separator: "\n\n"),
        version: GaragedCommand.version
    )

    @Option(name: .long, help: ArgumentHelp("Read settings from this file; flags win.", valueName: "FILE"))
    var config: String?

    @Flag(name: .long, help: "Print the advertising and scan-response bytes in hex and exit.")
    var printAdvertising = false

    /// Every other argument: the settings, parsed by the catalog.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func run() throws {
        Daemon.blockSignals()
        let log = Logger()
        let notifier = ServiceNotifier()
        do {
            let file = try config.map { path throws(ConfigError) in try ConfigFile(path: path) }
            let values = try SettingValues(flags: try CommandLineSettings.parse(settings), file: file)
            let settings = try Settings(values)
            if printAdvertising {
                print((try? settings.bluetooth.advertising.report()) ?? "the advertising payload does not fit")
                return
            }
            try Daemon(settings: settings, log: log, notifier: notifier).run()
        } catch let error as StartupError {
            notifier.failed(error.description)
            log.error("startup-failed", ["error": error.description])
            log.flush(timeout: .seconds(1))
            throw ExitCode(1)
        } catch let error as ConfigError {
            notifier.failed(error.description)
            log.error("startup-failed", ["error": error.description])
            log.flush(timeout: .seconds(1))
            throw ExitCode(1)
        }
    }
}
