/// A failure of the harness itself (a binary missing, a socket that cannot connect, a reply that
/// does not come), as an Error so a test can `try` it and XCTest reports the message.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    /// The errno behind a failed system call, when there was one.
    var errno: Int32?
    init(_ description: String, errno: Int32? = nil) {
        self.description = description
        self.errno = errno
    }
}
