/// An encrypted HomeKit session's frames, after pair-verify: each is a 2-byte little-endian
/// length (also the associated data), at most 1024 bytes of ChaCha20-Poly1305 ciphertext and its
/// 16-byte tag; each direction's nonce is its own 64-bit counter, so a frame replayed, dropped or
/// reordered fails to open and the connection is closed.
public struct HAPSessionCipher: Sendable {
    /// The most plaintext one frame carries.
    public static let maxFrame = 1024

    /// What reading found.
    public enum Opened: Equatable, Sendable {
        /// The plaintext of every whole frame so far (possibly none: wait for more bytes).
        case plaintext([UInt8])
        /// A frame that is too long or does not open: close the connection.
        case broken(String)
    }

    let readKey: [UInt8]
    let writeKey: [UInt8]
    let crypto: any HAPCrypto
    private var readCount: UInt64 = 0
    private var writeCount: UInt64 = 0
    private var pending: [UInt8] = []

    /// `readKey` opens what the controller sends, `writeKey` seals what the accessory sends.
    public init(readKey: [UInt8], writeKey: [UInt8], crypto: any HAPCrypto) {
        self.readKey = readKey
        self.writeKey = writeKey
        self.crypto = crypto
    }

    /// Takes bytes as they arrive and returns the plaintext of the frames they complete.
    public mutating func open(_ bytes: [UInt8]) -> Opened {
        pending += bytes
        var plain: [UInt8] = []
        var at = 0
        while pending.count - at >= 2 {
            let length = Int(pending[at]) | Int(pending[at + 1]) << 8
            guard length <= HAPSessionCipher.maxFrame else { return .broken("a frame of \(length) bytes (at most 1024)") }
            guard pending.count - at >= 2 + length + 16 else { break }
            let aad = Array(pending[at..<at + 2])
            let sealed = Array(pending[at + 2..<at + 2 + length + 16])
            guard let frame = crypto.open(key: readKey, nonce: HAPSessionCipher.nonce(readCount), sealed, aad: aad) else {
                return .broken("frame \(readCount) did not authenticate")
            }
            readCount += 1
            plain += frame
            at += 2 + length + 16
        }
        pending.removeFirst(at)
        return .plaintext(plain)
    }

    /// Seals `plaintext` into as many frames as it needs.
    public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var at = 0
        repeat {
            let n = min(HAPSessionCipher.maxFrame, plaintext.count - at)
            let aad: [UInt8] = [UInt8(n & 0xFF), UInt8(n >> 8)]
            out += aad
            out += crypto.seal(key: writeKey, nonce: HAPSessionCipher.nonce(writeCount), Array(plaintext[at..<at + n]), aad: aad)
            writeCount += 1
            at += n
        } while at < plaintext.count
        return out
    }

    /// 4 zero bytes, then the counter little-endian.
    static func nonce(_ counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) }
    }
}
