/// What a HomeKit session needs of the accessory it belongs to, shared by all its sessions: the
/// kept state, read at each use and never copied into a session (a demoted admin is demoted at
/// once: the channel contract's third clause), the database and each door's view, and the
/// changes that need files, the log or the history (a pairing, a wrong setup code), which the
/// accessory keeps before it answers. garaged's `HomeKitAccessory` is the one in service.
public protocol HAPAccessoryModel: AnyObject {
    /// The kept state as it stands now: the accessory's keys, and who is paired with which rights.
    var state: HAPAccessoryState { get }
    var crypto: any HAPCrypto { get }
    var database: HAPDatabase { get }
    /// Each door as HomeKit reads it now (by door index).
    var views: [HAPDoorView] { get }
    /// `POST /pair-setup` on connection `connection` from `peer` ("address:port"): the reply,
    /// given once a wrong code is counted or a new pairing kept (pair-setup is one at a time for
    /// the whole accessory, so it lives there).
    func pairSetup(_ body: [UInt8], connection: Int, peer: String, at now: Instant) -> [UInt8]
    /// `POST /pairings` from the verified `controller` (`admin`: read from the pairings just
    /// now): the reply, given once the change is kept.
    func pairings(_ body: [UInt8], by controller: String, admin: Bool) -> [UInt8]
    /// Spends one key exchange (a pair-verify M1) for `peer` from the budget every unproven peer
    /// shares; false: answer Busy, with no crypto done.
    func mayExchangeKeys(peer: String, at now: Instant) -> Bool
}
