/// A controller (an iPhone, a home hub) HomeKit has paired: its pairing id, its Ed25519
/// long-term public key, and whether it may manage pairings.
public struct HAPPairing: Equatable, Sendable {
    public var id: String
    public var publicKey: [UInt8]
    public var admin: Bool

    public init(id: String, publicKey: [UInt8], admin: Bool) {
        self.id = id
        self.publicKey = publicKey
        self.admin = admin
    }

    /// The longest pairing id taken: HomeKit's are 36-character UUIDs.
    public static let maxIDLength = 64

    /// A pairing id as a controller sent it (pair-setup's M5, `POST /pairings`), if it is one:
    /// 1 to `maxIDLength` bytes of printable ASCII without spaces. It is kept in `<table>.homekit`
    /// and printed in the log, the history and `garage-pins homekit pairings`, so nothing longer
    /// and no control character gets in.
    public static func id(_ bytes: [UInt8]) -> String? {
        guard (1...maxIDLength).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The accessory's side of HomeKit: who it is (its id and Ed25519 key), the code a controller
/// pairs with, and whom it has paired. Kept in `<table>.homekit` (DoorSystem's
/// `HomeKitFile`); this value is what the file holds, and the rules for changing it.
public struct HAPAccessoryState: Equatable, Sendable {
    /// The id written like a MAC ("1A:2B:3C:4D:5E:6F"), stable for the accessory's life.
    public var id: String
    /// The Ed25519 seed of the accessory's long-term key.
    public var seed: [UInt8]
    /// `XXX-XX-XXX`.
    public var setupCode: String
    /// Four characters of [0-9A-Z] for the setup URI and the `sh` record.
    public var setupID: String
    /// The configuration number (`c#`): bumped when the accessory database changes.
    public var configNumber: Int
    /// A digest of the accessory database the configuration number belongs to.
    public var databaseDigest: String
    /// Failed pair-setups since the last reset; at `maxFailures` pair-setup answers MaxTries.
    public var failedSetups: Int
    public var pairings: [HAPPairing]

    /// HomeKit's limit: after this many failed pair-setups the accessory refuses until reset.
    public static let maxFailures = 100
    /// The most controllers paired at once.
    public static let maxPairings = 16

    public init(id: String, seed: [UInt8], setupCode: String, setupID: String, configNumber: Int = 1,
                databaseDigest: String = "", failedSetups: Int = 0, pairings: [HAPPairing] = []) {
        self.id = id
        self.seed = seed
        self.setupCode = setupCode
        self.setupID = setupID
        self.configNumber = configNumber
        self.databaseDigest = databaseDigest
        self.failedSetups = failedSetups
        self.pairings = pairings
    }

    public var isPaired: Bool { !pairings.isEmpty }

    public func pairing(_ id: String) -> HAPPairing? { pairings.first { $0.id == id } }

    /// A new accessory: a random id, key, setup code and setup id.
    public static func fresh(crypto: any HAPCrypto) -> HAPAccessoryState {
        let idBytes = crypto.randomBytes(6)
        let id = Hex.string(idBytes, separator: ":")
        return HAPAccessoryState(id: id, seed: crypto.randomBytes(32), setupCode: SetupCode.random(crypto: crypto),
                                 setupID: SetupCode.randomSetupID(crypto: crypto))
    }

    /// Forgets every pairing and the failures, with a new setup code (`garage-pins homekit
    /// reset`); the accessory's id and key stay, so its configuration number does too.
    public mutating func reset(crypto: any HAPCrypto) {
        pairings = []
        failedSetups = 0
        setupCode = SetupCode.random(crypto: crypto)
    }

    /// Adds or updates a pairing (`POST /pairings` method 3, or a finished pair-setup). False
    /// when the table is full or an existing id comes with another key.
    public mutating func add(_ p: HAPPairing) -> Bool {
        if let i = pairings.firstIndex(where: { $0.id == p.id }) {
            guard pairings[i].publicKey == p.publicKey else { return false }
            pairings[i].admin = p.admin
            return true
        }
        guard pairings.count < HAPAccessoryState.maxPairings else { return false }
        pairings.append(p)
        return true
    }

    /// Removes a pairing; removing the last admin forgets every pairing, as HomeKit requires
    /// (nobody would be left to manage the others). An accessory left unpaired so has a new
    /// setup code: whoever saw the old one (a photo of the QR code, a look at the owner's
    /// screen) could otherwise pair with it again.
    public mutating func remove(_ id: String, crypto: any HAPCrypto) {
        pairings.removeAll { $0.id == id }
        if !pairings.contains(where: \.admin) {
            pairings = []
            setupCode = SetupCode.random(crypto: crypto)
        }
    }
}

/// HomeKit's setup codes: eight digits written `XXX-XX-XXX`, never one the specification forbids.
public enum SetupCode {
    /// The codes HomeKit refuses: every digit the same, and the two ascending runs.
    public static let forbidden: Set<String> = Set((0...9).map { d in
        let s = String(repeating: String(d), count: 8)
        return format(s)
    } + ["123-45-678", "876-54-321"])

    /// A random code (uniform over the allowed ones).
    public static func random(crypto: any HAPCrypto) -> String {
        while true {
            let bytes = crypto.randomBytes(4)
            let n = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            // Rejection sampling keeps the digits uniform.
            guard n < 4_200_000_000 else { continue }
            let digits = String(n % 100_000_000)
            let code = format(String(repeating: "0", count: 8 - digits.count) + digits)
            if !forbidden.contains(code) { return code }
        }
    }

    /// Four characters of 0-9 and A-Z.
    public static func randomSetupID(crypto: any HAPCrypto) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var out = ""
        while out.count < 4 {
            let b = crypto.randomBytes(1)[0]
            if b < 252 { out.append(alphabet[Int(b) % 36]) }
        }
        return out
    }

    /// Whether `code` is written `XXX-XX-XXX` with digits and is allowed.
    public static func isValid(_ code: String) -> Bool {
        let chars = Array(code)
        guard chars.count == 10, chars[3] == "-", chars[6] == "-" else { return false }
        let digits = chars.enumerated().filter { $0.offset != 3 && $0.offset != 6 }.map(\.element)
        return digits.allSatisfy(\.isASCIIDigitChar) && !forbidden.contains(code)
    }

    static func format(_ eight: String) -> String {
        let c = Array(eight)
        return String(c[0..<3]) + "-" + String(c[3..<5]) + "-" + String(c[5..<8])
    }

    /// The `X-HM://` setup URI the Home app's scanner reads: a 45-bit payload in base 36 (the
    /// version 0, reserved 0, the category, the IP flag (bit 28), the code's number), then the
    /// setup id.
    public static func setupURI(code: String, setupID: String, category: Int) -> String {
        let number = UInt64(code.filter(\.isASCIIDigitChar)) ?? 0
        let payload = UInt64(category) << 31 | UInt64(1) << 28 | number
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var n = payload, digits: [Character] = []
        while n > 0 {
            digits.append(alphabet[Int(n % 36)])
            n /= 36
        }
        let body = String(digits.reversed())
        return "X-HM://" + String(repeating: "0", count: max(0, 9 - body.count)) + body + setupID
    }
}

extension Character {
    var isASCIIDigitChar: Bool { ("0"..."9").contains(self) }
}

