import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// How garage-pins fails, each with its documented exit code: 1 refused by the daemon (its
/// reason printed), 2 usage, 3 daemon unreachable; offline file problems are 1 as well.
enum CLIError: Error, CustomStringConvertible {
    case refused(String)
    case usage(String)
    case unreachable(String)
    case file(String)

    var description: String {
        switch self {
        case .refused(let s), .usage(let s), .unreachable(let s), .file(let s): return s
        }
    }

    var exitCode: Int32 {
        switch self {
        case .refused, .file: return 1
        case .usage: return 2
        case .unreachable: return 3
        }
    }
}

extension CLIError {
    /// Explains a daemon's ERR record in words.
    static func explain(_ record: String) -> String {
        let parts = record.split(separator: " ")
        guard parts.count >= 2, parts[0] == "ERR" else { return record }
        let why: String
        switch parts[1] {
        case "PIN": why = "wrong PIN (or not the master PIN for managing PINs)"
        case "LOCKED": why = "too many wrong PINs; try again in \(parts.count > 2 ? parts[2] : "a few") s"
        case "FORMAT": why = "the daemon could not parse the request"
        case "CMD": why = "the daemon does not know that command"
        case "SLOT": why = "no such slot, or the slot is free"
        case "FULL": why = "the PIN table is full; delete a PIN first"
        case "DUP": why = "that PIN is already stored"
        case "BUSY": why = "the door is moving the other way; wait for it to stop"
        case "STORE": why = "the daemon could not save the PIN table; see its log"
        default: why = "refused"
        }
        return "garaged refused: \(why) (\(record))"
    }
}

/// Runs a command body and turns CLIError into its message on stderr and its exit code.
func runReportingErrors(_ body: () throws(CLIError) -> Void) throws {
    do {
        try body()
    } catch {
        var stderr = StandardError()
        print("garage-pins: \(error.description)", to: &stderr)
        throw ExitCode(error.exitCode)
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        _ = string.withCString { Glibc.write(2, $0, strlen($0)) }
    }
}
