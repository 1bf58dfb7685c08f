/// The garaged binary's entry (Sources/garaged-main calls it): the command line parsed and
/// run. The one public name in GaragedKit; the tests reach the rest with @testable.
public enum GaragedEntry {
    /// Runs `garaged` with the process's arguments; exits on its own with a failure's status.
    public static func main() {
        GaragedCommand.main()
    }
}
