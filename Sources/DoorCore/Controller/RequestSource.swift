/// Who sent a request, as far as the transport can tell: for the log, and for the throttle.
public struct RequestSource: Equatable, Sendable, CustomStringConvertible {
    /// e.g. "local uid=1000" or "bluetooth 00:AA:01:01:00:01".
    public var description: String
    /// The throttle budget the request draws on; nil for the owner at the shell (uid 0 or the
    /// daemon's own uid on the local socket), who must never be locked out of their garage, and
    /// for the channels that send no PIN (MQTT, HomeKit).
    public var channel: Throttle.Channel?
    /// True on the local socket only: it may use the owner's extensions (`L...`), which
    /// Bluetooth answers with `ERR CMD`.
    public var isLocal: Bool
    /// False for a phone that may open but not manage PINs (P, A, E, D, C=) even with the
    /// master PIN: with `--ble-security paired`, every phone but those paired as admin.
    public var mayManage: Bool

    /// What repeats are summarised and allowances counted under, when the transport knows better
    /// than the default (every unpaired HomeKit peer together).
    private var sharedKey: String?

    public init(_ description: String, channel: Throttle.Channel?, isLocal: Bool = false, mayManage: Bool = true,
                summaryKey: String? = nil) {
        self.description = description
        self.channel = channel
        self.isLocal = isLocal
        self.mayManage = mayManage
        sharedKey = summaryKey
    }

    /// The owner at the shell: on the local socket, never throttled. (MQTT and HomeKit are not
    /// throttled either, having no PINs, but they are not the owner.)
    public var isOwner: Bool { channel == nil && isLocal }

    /// What repeats are summarised under: each local user on their own, and every remote
    /// connection together (a guesser can reconnect with a new address at will).
    public var summaryKey: String { sharedKey ?? (isLocal ? description : channel?.rawValue ?? description) }
}
