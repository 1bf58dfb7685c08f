/// Who sent a request, as far as the transport can tell: for the log, and for the throttle.
public struct RequestSource: Equatable, Sendable, CustomStringConvertible {
    /// e.g. "local uid=1000" or "bluetooth 00:AA:01:01:00:01".
    public var description: String
    /// The throttle budget the request draws on; nil only for the owner at the shell (uid 0 or
    /// the daemon's own uid on the local socket), who must never be locked out of their garage.
    public var channel: Throttle.Channel?
    /// True on the local socket only: it may use the owner's extensions (`L...`), which
    /// Bluetooth answers with `ERR CMD`.
    public var isLocal: Bool
    /// False for a phone that may open but not manage PINs (P, A, E, D, C=) even with the
    /// master PIN: with `--ble-security paired`, every phone but those paired as admin.
    public var mayManage: Bool

    public init(_ description: String, channel: Throttle.Channel?, isLocal: Bool = false, mayManage: Bool = true) {
        self.description = description
        self.channel = channel
        self.isLocal = isLocal
        self.mayManage = mayManage
    }

    /// The owner at the shell: never throttled.
    public var isOwner: Bool { channel == nil }

    /// What repeats are summarised under: each local user on their own, and every remote
    /// connection together (a guesser can reconnect with a new address at will).
    public var summaryKey: String { isLocal ? description : channel?.rawValue ?? description }
}
