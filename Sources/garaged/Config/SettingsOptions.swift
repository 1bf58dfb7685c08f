import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// The settings both `garaged` (the daemon) and `garaged doctor` read: `--config FILE` (else
/// the default file, `ConfigChoice`) and every catalog flag, so the doctor checks exactly what
/// the daemon would run with.
struct SettingsOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Read settings from this file; flags win. Without it, \(ConfigChoice.defaultPath) is read when it exists (\(ConfigChoice.environmentKey) names another file, or none when empty).", valueName: "FILE"))
    var config: String?

    /// Every other argument: the settings, parsed by the catalog.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var flags: [String] = []

    /// Which file the settings come from, with this process's environment and files.
    var configChoice: ConfigChoice {
        ConfigChoice(given: config, environment: getenv(ConfigChoice.environmentKey).map { String(cString: $0) })
    }

    /// The settings from the file (`choice`) and the flags, checked.
    func settings(from choice: ConfigChoice) throws(ConfigError) -> Settings {
        let commandLine = try CommandLineSettings(flags)
        guard case .byDefault(let path) = choice else {
            return try Settings(commandLine, file: try choice.path.map { path throws(ConfigError) in try ConfigFile(path: path) })
        }
        // A file nobody named on the command line: the error says why it was read at all.
        do { return try Settings(commandLine, file: try ConfigFile(path: path)) } catch {
            throw ConfigError("\(error.description) (\(path) is read because no --config was given: fix it, run as a user who can read it (sudo), or give --config FILE)")
        }
    }

    /// The settings from `--config` or the default file, and the flags, checked.
    func settings() throws(ConfigError) -> Settings { try settings(from: configChoice) }
}

/// Which config file garaged and `garaged doctor` read: the one `--config` names; without it
/// /etc/garaged.conf when it exists, so `sudo garaged doctor` (as the package's postinst says)
/// checks what the service runs with rather than the built-in defaults. `GARAGED_CONFIG` names
/// another default file, or none when empty (the tests, and a run that must not read the
/// machine's file).
enum ConfigChoice: Equatable {
    /// `--config FILE`: read, and an error when it cannot be.
    case given(String)
    /// No `--config`, and the default file exists: read.
    case byDefault(String)
    /// No `--config`, and no default file (`looked`: the path that is not there; nil when
    /// `GARAGED_CONFIG` is empty): built-in defaults and the flags.
    case none(looked: String?)

    /// The package's file, the one its unit names with `--config`.
    static let defaultPath = "/etc/garaged.conf"
    /// The environment variable that names another default file (empty: none).
    static let environmentKey = "GARAGED_CONFIG"

    /// The choice for `given` (`--config`) and `environment` (`GARAGED_CONFIG`'s value, nil
    /// when unset); `exists` says whether a default file is there.
    init(given: String?, environment: String?, exists: (String) -> Bool = ConfigChoice.exists) {
        if let given {
            self = .given(given)
            return
        }
        let path = environment ?? ConfigChoice.defaultPath
        if path.isEmpty {
            self = .none(looked: nil)
        } else {
            self = exists(path) ? .byDefault(path) : .none(looked: path)
        }
    }

    /// Whether anything is at `path` (a file that cannot be read is still chosen, and its
    /// error then says so).
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// Where the settings come from, for doctor's settings line.
    var words: String {
        switch self {
        case .given(let path): return "\(path) (--config) and the flags"
        case .byDefault(let path): return "\(path) (no --config given: the default file) and the flags"
        case .none(let looked?): return "the built-in defaults and the flags (no --config given, and no \(looked))"
        case .none(nil): return "the built-in defaults and the flags (no --config given, and \(ConfigChoice.environmentKey) is empty)"
        }
    }

    /// The start's log line: which file, and why that one.
    var logFields: [(String, String)] {
        switch self {
        case .given(let path): return [("file", path), ("how", "--config")]
        case .byDefault(let path): return [("file", path), ("how", "the default file: no --config given")]
        case .none(let looked?): return [("file", "none"), ("how", "no --config given and no \(looked): the built-in defaults")]
        case .none(nil): return [("file", "none"), ("how", "no --config given and \(ConfigChoice.environmentKey) is empty: the built-in defaults")]
        }
    }

    /// The file read, if any.
    var path: String? {
        switch self {
        case .given(let p), .byDefault(let p): return p
        case .none: return nil
        }
    }
}
