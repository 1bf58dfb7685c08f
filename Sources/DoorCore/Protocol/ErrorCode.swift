/// The protocol's error replies: each one means "nothing was changed", and says why.
public enum ErrorCode: String, Error, Sendable, CaseIterable {
    /// Unknown PIN, or a non-master PIN for P/A/E/D.
    case pin = "PIN"
    /// Too many wrong PINs; the reply carries the seconds left.
    case locked = "LOCKED"
    /// Malformed request: wrong length, bad characters, an over-long socket line.
    case format = "FORMAT"
    /// Unknown command letter.
    case command = "CMD"
    /// Index out of range, slot 0, or a free slot for E/D.
    case slot = "SLOT"
    /// No free slot for A.
    case full = "FULL"
    /// The new PIN is already stored (master included).
    case duplicate = "DUP"
    /// The door is believed to be moving the other way.
    case busy = "BUSY"
    /// The table could not be saved to disk; the change was not made (our extension).
    case store = "STORE"
}
