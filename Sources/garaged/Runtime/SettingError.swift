/// What is wrong with a setting's value, without saying where it came from (`SettingValues`
/// adds the flag or the file and line). Beside `ConfigError`, below both the settings and the
/// drives whose specs (`RelaySpec`, `OpenerSpec`) parse a value.
struct SettingError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
