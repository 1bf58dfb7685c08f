/// A setting the daemon cannot start with; the message names the setting and a valid value.
struct ConfigError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
