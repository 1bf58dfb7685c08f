import ArgumentParser
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// `garage-pins`: the owner's tool for the garage, from a shell.
@main
struct GaragePins: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "garage-pins",
        abstract: "Open and close the garage and manage its PIN table from a shell.",
        discussion: """
        Commands that talk to the running daemon take --socket PATH (default \(DaemonClient.defaultSocket)) \
        and the PIN from --pin or the GARAGE_PIN environment variable. \
        Exit codes: 0 done, 1 refused (the daemon's reason is printed), 2 usage error, 3 daemon unreachable.
        """,
        subcommands: [Init.self, Open.self, Close.self, Status.self]
    )
}

/// The options every daemon command shares.
struct DaemonOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's socket.", valueName: "PATH"))
    var socket: String = DaemonClient.defaultSocket

    @Option(help: ArgumentHelp("Your PIN (5 characters); default: $GARAGE_PIN.", valueName: "PIN"))
    var pin: String?

    /// The PIN from --pin or GARAGE_PIN, checked before anything is sent.
    func resolvedPIN() throws(CLIError) -> PIN {
        guard let text = pin ?? getenv("GARAGE_PIN").map({ String(cString: $0) }) else {
            throw .usage("no PIN given: pass --pin PIN or set GARAGE_PIN")
        }
        guard let p = PIN(text) else {
            throw .usage("a PIN is exactly 5 printable ASCII characters without spaces, e.g. 12345")
        }
        return p
    }

    /// Sends one command and returns the replies, or throws the daemon's refusal.
    func send(_ command: Command) throws(CLIError) -> [String] {
        let request = Request(pin: try resolvedPIN(), command: command)
        let replies = try DaemonClient(socketPath: socket).send(CommandCodec.encode(request))
        if let last = replies.last, last.hasPrefix("ERR") { throw .refused(CLIError.explain(last)) }
        return replies
    }
}

extension GaragePins {
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new PIN table with a master PIN.",
            discussion: "The table is a 1024-byte file in the book's Arduino EEPROM layout, mode 0600.")

        @Option(help: ArgumentHelp("The table file to create.", valueName: "FILE"))
        var pins: String

        @Option(help: ArgumentHelp("The master PIN (5 printable characters): the only PIN that manages PINs.", valueName: "PIN"))
        var master: String

        @Option(help: ArgumentHelp("How many slots, master included (1-\(PinTable.maxCapacity)).", valueName: "N"))
        var slots: Int = PinTable.defaultCapacity

        @Flag(help: "Replace an existing table (forgets every PIN in it).")
        var force = false

        func run() throws {
            try runReportingErrors { () throws(CLIError) in
                guard let masterPIN = PIN(master) else {
                    throw .usage("--master must be exactly 5 printable ASCII characters without spaces, e.g. 12345")
                }
                if let holder = TableLock.holder(tablePath: pins) {
                    throw .file("PIN table \(pins) is in use by process \(holder) (a running garaged); stop it first")
                }
                do {
                    let table = try PinTable(master: masterPIN, capacity: slots)
                    try PinTableFile(path: pins).create(table, force: force)
                } catch let e as PinTableError {
                    throw .usage("--slots: \(e.description)")
                } catch let e as TableFileError {
                    throw .file(e.description)
                } catch {
                    throw .file("\(error)")
                }
                print("created \(pins): \(slots) slots, master PIN in slot 0")
            }
        }
    }

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open the door (presses only if it is believed closed).")
        @OptionGroup var daemon: DaemonOptions

        func run() throws {
            try runReportingErrors { () throws(CLIError) in print(try daemon.send(.open).joined(separator: "\n")) }
        }
    }

    struct Close: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close the door (presses only if it is believed open).")
        @OptionGroup var daemon: DaemonOptions

        func run() throws {
            try runReportingErrors { () throws(CLIError) in print(try daemon.send(.close).joined(separator: "\n")) }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what the daemon believes the door is doing.")
        @OptionGroup var daemon: DaemonOptions

        func run() throws {
            try runReportingErrors { () throws(CLIError) in print(try daemon.send(.status).joined(separator: "\n")) }
        }
    }
}
