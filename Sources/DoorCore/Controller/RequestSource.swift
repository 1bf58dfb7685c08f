/// Who sent a request, as far as the transport can tell: for the log, and for the throttle.
public struct RequestSource: Equatable, Sendable, CustomStringConvertible {
    /// e.g. "local uid=1000" or "bluetooth 00:AA:01:01:00:01".
    public var description: String
    /// False only for the owner at the shell (uid 0 or the daemon's own uid on the local
    /// socket), who must never be locked out of their own garage.
    public var throttled: Bool
    /// True on the local socket only: it may use the owner's extensions (`L...`), which
    /// Bluetooth answers with `ERR CMD`.
    public var isLocal: Bool

    public init(_ description: String, throttled: Bool, isLocal: Bool = false) {
        self.description = description
        self.throttled = throttled
        self.isLocal = isLocal
    }
}
