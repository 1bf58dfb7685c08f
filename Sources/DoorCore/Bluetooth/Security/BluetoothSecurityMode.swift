/// What the Bluetooth link must be before a phone may send commands (`--ble-security`).
public enum BluetoothSecurityMode: String, CaseIterable, Sendable {
    /// The book's behaviour, byte for byte: any phone in range may write, the PIN in clear.
    case open
    /// Writes to the command characteristic and to its notification switch need an encrypted
    /// link authenticated by LE Secure Connections with a phone the owner paired.
    case paired
}
