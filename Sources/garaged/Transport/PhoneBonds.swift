import DoorCore

/// What an ATT bearer asks of the bonded phones (`--ble-security paired`): who a peer is, and
/// that it was seen. The pairing agent's store answers; the bearer knows nothing of pairing.
protocol PhoneBonds: AnyObject, Sendable {
    func phone(at address: LEAddress) -> BondedPhone?
    /// The bonded phone on a link the kernel says was paired with LE Secure Connections. A peer
    /// not known yet has only just paired: the pairing agent reads what the kernel has queued,
    /// on its own thread, before the answer.
    func pairedPhone(at address: LEAddress) -> BondedPhone?
    /// A bonded phone wrote over its secure link: remembered for its "last seen".
    func touch(_ address: LEAddress, at wall: Int64)
}
