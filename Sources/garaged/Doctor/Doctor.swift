import ArgumentParser
import DoorCore

/// `garaged doctor`: checks a machine before the first start (or after a change) and says what
/// to fix, one line per finding; exit 0 when nothing stops the daemon. It only looks: it
/// requests no line, writes no file, and works beside a running daemon.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the system, settings, table, GPIO lines, socket, Bluetooth and MQTT; print what to fix.",
        usage: "garaged doctor [--SETTING VALUE ...] [--config FILE]",
        discussion: "Give it the settings garaged runs with (the same flags, the same --config; without --config it reads \(ConfigChoice.defaultPath) when it exists, as garaged does, and its first settings line says which file it read). Each line starts with ok, warn (works, but read it) or FAIL (garaged would not start or not work). It only looks: it requests no GPIO line, writes no file, and may run beside the daemon. Exit status 0 when nothing FAILs, 1 otherwise."
    )

    @OptionGroup var options: SettingsOptions

    func run() throws {
        var report = DoctorReport()
        DoctorChecks.system(into: &report)
        // The doctor reads the table and the MQTT password too.
        if let why = Daemon.forbidCoreDumps() {
            report.add(.warn, "core dumps", "cannot be forbidden (\(why)): a crash of garaged could leave the PINs and keys in a core file")
        }
        let choice = options.configChoice
        do {
            let settings = try options.settings(from: choice)
            report.add(.ok, "settings", "\(choice.words): every key known, every value valid")
            DoctorChecks(settings: settings).run(into: &report)
        } catch {
            report.add(.fail, "settings", error.description)
        }
        print(report.text, terminator: "")
        if report.failed { throw ExitCode(1) }
    }
}
