import ArgumentParser
import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The options every daemon command shares: where the daemon is and who is asking.
struct DaemonOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's socket.", valueName: "PATH"))
    var socket: String = LocalSocketAddress.defaultPath

    @Option(help: ArgumentHelp("Your PIN (5 characters); default: $GARAGE_PIN, else a prompt on a terminal.", valueName: "PIN"))
    var pin: String?

    /// The PIN from --pin, GARAGE_PIN or a prompt, checked before anything is sent.
    func resolvedPIN() throws(CLIError) -> PIN {
        var text = pin ?? getenv("GARAGE_PIN").map { String(cString: $0) }
        if text == nil, isatty(0) == 1 { text = PINPrompt.read("PIN: ") }
        guard let text else {
            throw .usage("no PIN given: pass --pin PIN, set GARAGE_PIN, or run from a terminal to be asked")
        }
        guard let p = PIN(text) else {
            throw .usage("a PIN is exactly 5 printable ASCII characters without spaces, e.g. 12345")
        }
        return p
    }

    /// A command's answer: its records (without the reason), and garaged's words for why it
    /// was refused or did nothing ("already closed: nothing pressed"), nil when it did what it
    /// asked or garaged gave none.
    struct Answer {
        var records: [String]
        var reason: String?

        /// What a door command prints: garaged's words when it gave any, else its records (`OK`).
        var said: String { reason ?? records.joined(separator: "\n") }
    }

    /// Sends one command (about `door`, the first when nil) and returns the replies, or throws
    /// the daemon's refusal. `lacking` is for a command a door may lack the part for (a light,
    /// an opener's lock): such a door answers ERR CMD with garaged's words for what its table of
    /// parts lacks (`DoorCapabilities.lacking`), which are printed; `lacking` says it instead of
    /// "unknown command" for a garaged that gives none.
    func send(_ command: Command, door: DoorChoice? = nil, lacking: (() -> String)? = nil) throws(CLIError) -> [String] {
        try ask(command, door: door, lacking: lacking).records
    }

    /// `send`, keeping garaged's words: a refusal is thrown in them (with the code, for
    /// scripts), and a request that did nothing comes back with them in `reason`.
    func ask(_ command: Command, door: DoorChoice? = nil, lacking: (() -> String)? = nil) throws(CLIError) -> Answer {
        let request = Request(pin: try resolvedPIN(), command: command, door: door)
        var answer = Answer(records: [], reason: nil)
        for record in try DaemonClient(socketPath: socket).send(CommandCodec.encode(request)) {
            // Escaped like every string garaged passes on: a door's name or a device in the
            // words cannot forge a line of the output.
            if let words = Reply.reason(in: record) { answer.reason = words.escapingControlCharacters } else { answer.records.append(record) }
        }
        if let last = answer.records.last, last.hasPrefix("ERR") {
            if let lacking, Reply.error(in: last)?.code == .command {
                throw .refused(answer.reason.map { CLIError.explain(last, reason: $0) } ?? lacking())
            }
            throw .refused(CLIError.explain(last, reason: answer.reason))
        }
        return answer
    }

    /// Sends a local extension and returns its JSON records (the final `OK` is dropped).
    func records(_ command: LocalCommand) throws(CLIError) -> [JSONValue] {
        var out: [JSONValue] = []
        for record in try send(.local(command)) where record.hasPrefix("{") {
            do { out.append(try DaemonOptions.printable(record)) } catch {
                throw .refused("garaged sent a record this garage-pins cannot read (\(error)); are both the same version?")
            }
        }
        return out
    }

    /// A JSON record from garaged, as garage-pins prints it: every string in it (keys too) with
    /// its control characters escaped (`\n`, `\x1b`), so no name garaged passes on (a pairing id,
    /// a door's name, a history record's) can forge a line of the output or send the terminal a
    /// sequence. Every record garage-pins reads comes through here.
    static func printable(_ record: String) throws(JSONError) -> JSONValue {
        func escaped(_ v: JSONValue) -> JSONValue {
            switch v {
            case .string(let s): return .string(s.escapingControlCharacters)
            case .array(let items): return .array(items.map(escaped))
            case .object(let members): return .object(members.map { ($0.0.escapingControlCharacters, escaped($0.1)) })
            case .null, .bool, .number: return v
            }
        }
        return escaped(try JSONParser.parse(record))
    }

    /// Follows a topic, handing each pushed JSON record to `body`, until the daemon goes away.
    func follow(_ topic: LocalCommand.FollowTopic, since: Int64? = nil, _ body: (JSONValue) -> Void) throws(CLIError) {
        try follow(.follow(topic, since: since)) { body($0); return true }
    }

    /// Sends a request the daemon answers with `OK` and then pushed records, handing each to
    /// `body` until it returns false or the daemon goes away.
    func follow(_ command: LocalCommand, _ body: (JSONValue) -> Bool) throws(CLIError) {
        let request = Request(pin: try resolvedPIN(), command: .local(command))
        try DaemonClient(socketPath: socket).follow(CommandCodec.encode(request)) { (record: String) throws(CLIError) -> Bool in
            guard let value = try? DaemonOptions.printable(record) else { return true }
            let more = body(value)
            fflush(nil)
            return more
        }
    }
}
