import ArgumentParser
import CLinux
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// `garage-pins`: the owner's tool for the garage, from a shell.
@main
struct GaragePins: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "garage-pins",
        abstract: "Run the garage from a shell: open it, manage who may, see who came and went.",
        discussion: """
        Commands that talk to the running daemon take --socket PATH (default \(LocalSocketAddress.defaultPath)) \
        and your PIN from --pin, the GARAGE_PIN environment variable, or a prompt (when stdin is a \
        terminal; nothing is echoed). Managing PINs and reading the history need the master PIN.

        Commands that work on a table file (init, master, check, import-eeprom, export, import) \
        take --pins FILE and refuse to write a table a running garaged holds.

        Read commands take --json for scripts. Exit codes: 0 done; 1 refused (the daemon's reason \
        is printed: wrong PIN, locked, full, unknown slot...) or a file problem; 2 usage error; \
        3 daemon unreachable (the socket path tried is printed).

        Example session:
          garage-pins init --pins /var/lib/garaged/pins.eeprom --master 12345
          export GARAGE_PIN=12345
          garage-pins add 24680 --label Alice
          garage-pins open
          garage-pins list
          garage-pins log --since today
          garage-pins who --today
        """,
        groupedSubcommands: [
            CommandGroup(name: "Door", subcommands: [Open.self, Close.self, Status.self, Hold.self, Light.self, Remotes.self, AutoClose.self, Unlock.self]),
            CommandGroup(name: "PIN", subcommands: [List.self, Add.self, Edit.self, Delete.self, Label.self]),
            CommandGroup(name: "History", subcommands: [Log.self, Who.self]),
            CommandGroup(name: "Phones", subcommands: [Pair.self, Phones.self, Unpair.self]),
            CommandGroup(name: "Apple Home", subcommands: [HomeKit.self]),
            CommandGroup(name: "Offline table",
                         subcommands: [Init.self, Master.self, Check.self, ImportEEPROM.self, Export.self, Import.self]),
        ]
    )

    /// ArgumentParser exits 64 on a usage error; garage-pins documents 2 (as most Unix tools),
    /// so parse errors are mapped before exiting. Everything else exits as ArgumentParser says.
    /// Core dumps are forbidden first: garage-pins holds PINs (the master's, a whole table).
    static func main() {
        let core = clinux_forbid_core_dumps()
        if core != 0 {
            var stderr = StandardError()
            print("garage-pins: warning: core dumps cannot be forbidden (\(String(cString: strerror(core)))): a crash could leave the PINs in a core file", to: &stderr)
        }
        if let why = misplaced(Array(CommandLine.arguments.dropFirst())) {
            var stderr = StandardError()
            print("garage-pins: \(why)", to: &stderr)
            Glibc.exit(2)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                var stderr = StandardError()
                print(fullMessage(for: error), to: &stderr)
                print("See 'garage-pins --help'.", to: &stderr)
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }

    /// What is wrong with a command line whose first word is not a command, in words that point
    /// at the fix (ArgumentParser would say "Unexpected argument 'opne'", or, with options after
    /// it, "Unknown option '--socket'", which sends the reader after the wrong word); nil when
    /// ArgumentParser should have it.
    static func misplaced(_ arguments: [String]) -> String? {
        guard let first = arguments.first else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        let list = "garage-pins --help lists the commands"
        if first.hasPrefix("-") {
            // An option before the command (`garage-pins --pin 12345 open`): say where it goes.
            guard let command = arguments.first(where: { names.contains($0) }), command != "help" else { return nil }
            return "the command comes first, then its options: garage-pins \(command) \(first)... (\(list))"
        }
        guard !names.contains(first) else { return nil }
        if let meant = NearestWord.to(first, among: names) {
            return "there is no command '\(first.escapingControlCharacters)'; did you mean '\(meant)'? (\(list))"
        }
        return "there is no command '\(first.escapingControlCharacters)' (\(list))"
    }
}
