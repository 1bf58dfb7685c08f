import ArgumentParser
import DoorCore

/// `garaged [settings]`: runs the daemon until SIGTERM or SIGINT.
struct RunDaemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon (what plain `garaged` does)."
    )

    @OptionGroup var options: SettingsOptions

    @Flag(name: .long, help: "Print the advertising and scan-response bytes in hex and exit.")
    var printAdvertising = false

    func run() throws {
        let coreDumps = Daemon.forbidCoreDumps()
        Daemon.blockSignals()
        let log = Logger()
        if let why = coreDumps {
            log.warning("core-dumps-allowed", ["error": why, "effect": "a crash could leave the PINs and keys in a core file; the packaged unit sets LimitCORE=0"])
        }
        let notifier = ServiceNotifier()
        do {
            let choice = options.configChoice
            if !printAdvertising { log.info("config", choice.logFields) }
            let settings = try options.settings(from: choice)
            if printAdvertising {
                print((try? settings.bluetooth.advertising.report()) ?? "the advertising payload does not fit")
                return
            }
            try Daemon(settings: settings, log: log, notifier: notifier).run()
        } catch let error as StartupError {
            try fail(error.description, log, notifier)
        } catch let error as ConfigError {
            try fail(error.description, log, notifier)
        }
    }

    private func fail(_ why: String, _ log: Logger, _ notifier: ServiceNotifier) throws -> Never {
        notifier.failed(why)
        log.error("startup-failed", ["error": why])
        log.flush(timeout: .seconds(1))
        throw ExitCode(1)
    }
}
