import ArgumentParser

/// The settings both `garaged` (the daemon) and `garaged doctor` read: `--config FILE` and every
/// catalog flag, so the doctor checks exactly what the daemon would run with.
struct SettingsOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Read settings from this file; flags win.", valueName: "FILE"))
    var config: String?

    /// Every other argument: the settings, parsed by the catalog.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var flags: [String] = []

    /// The settings from the file and the flags, checked.
    func settings() throws(ConfigError) -> Settings {
        let file = try config.map { path throws(ConfigError) in try ConfigFile(path: path) }
        return try Settings(try CommandLineSettings(flags), file: file)
    }
}
