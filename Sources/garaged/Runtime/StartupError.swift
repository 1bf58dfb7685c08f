/// Why the daemon could not start; the message says what to do.
struct StartupError: Error, CustomStringConvertible {
    var description: String
}
