/// Bytes in, command or specific error out: the parsing half of the book's rxCallback.
///
/// A request is `<PIN><letter><arguments>`. Indexes are one raw byte 0x01-0x2F (what the
/// book's app sends) or 1-3 ASCII decimal digits; the two never overlap because digits are
/// 0x30-0x39. Range checks against the table are the controller's job: the codec only knows
/// the shape.
public enum CommandCodec {
    /// The longest request of the book's protocol (`E` + 3-digit index + PIN).
    public static let maxRequestLength = PIN.length + 1 + 3 + PIN.length
    /// The longest line the local socket takes: room for the owner's extensions, whose
    /// longest is `Ladd <pin> <label>` with a label of `Labels.maxLength` bytes.
    public static let maxLocalLineLength = 64

    public static func decode<C: Collection>(_ input: C) -> Result<Request, ErrorCode>
    where C.Element == UInt8 {
        decode(Array(input))
    }

    /// `decode` without a copy: the request is read where it lies.
    public static func decode(_ bytes: [UInt8]) -> Result<Request, ErrorCode> {
        Result { () throws(ErrorCode) in try request(bytes) }
    }

    /// `decode` as a typed throw: the request is returned as it is, with no `Result` around it
    /// to copy it out of (the controller's way, on every press).
    public static func request(_ bytes: [UInt8]) throws(ErrorCode) -> Request {
        guard bytes.count > PIN.length, let pin = PIN(bytes: bytes[..<PIN.length]) else {
            throw .format
        }
        // `<PIN>@<door>:<command>`: a door other than the first (our extension).
        var at = PIN.length
        var door: DoorChoice?
        if bytes[at] == UInt8(ascii: "@") {
            let selector = bytes[(at + 1)...].prefix(DoorChoice.maxLength + 1)
            guard let colon = selector.firstIndex(of: UInt8(ascii: ":")), colon < bytes.count - 1,
                  let choice = DoorChoice(bytes[(at + 1)..<colon]) else { throw .format }
            door = choice
            at = colon + 1
        }
        let letter = bytes[at]
        let args = bytes[(at + 1)...]
        let command: Command?
        switch letter {
        case UInt8(ascii: "O"):
            if isSwitch(args, on: true) {
                command = .open
            } else if isSwitch(args, on: false) {
                command = .close
            } else {
                command = nil
            }
        case UInt8(ascii: "S"): command = args.isEmpty ? .status : nil
        case UInt8(ascii: "P"): command = args.isEmpty ? .list : nil
        case UInt8(ascii: "A"): command = PIN(bytes: args).map(Command.add)
        case UInt8(ascii: "E"):
            guard args.count > PIN.length, let newPIN = PIN(bytes: args.suffix(PIN.length)),
                  let slot = decodeIndex(args.dropLast(PIN.length)) else { throw .format }
            command = .edit(slot: slot, pin: newPIN)
        case UInt8(ascii: "D"): command = decodeIndex(args).map { .delete(slot: $0) }
        case UInt8(ascii: "H"): command = decodeSetting(args, max: Door.maxHoldMinutes).map { .hold(minutes: $0) }
        case UInt8(ascii: "C"): command = decodeSetting(args, max: DoorTiming.autoCloseRange.upperBound).map { .closeAfter(seconds: $0) }
        case LocalCommand.letter where isSwitch(args, on: true): command = .light(on: true)
        case LocalCommand.letter where isSwitch(args, on: false): command = .light(on: false)
        case LocalCommand.letter: command = LocalCommand.decode(Array(args)).map(Command.local)
        default: throw .command
        }
        guard let command, door == nil || command.isAboutADoor else { throw .format }
        return Request(pin: pin, command: command, door: door)
    }

    /// `=1` (`on`) or `=0`: compared byte by byte, as every open and close is.
    static func isSwitch(_ args: ArraySlice<UInt8>, on: Bool) -> Bool {
        args.count == 2 && args.first == UInt8(ascii: "=") && args.last == UInt8(ascii: on ? "1" : "0")
    }

    /// One raw byte 0x01-0x2F, or 1-3 ASCII digits; nil for anything else.
    static func decodeIndex<C: Collection>(_ bytes: C) -> Int? where C.Element == UInt8 {
        if bytes.count == 1, let b = bytes.first, b >= 0x01, b <= 0x2F { return Int(b) }
        guard (1...3).contains(bytes.count) else { return nil }
        var value = 0
        for b in bytes {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(b - UInt8(ascii: "0"))
        }
        return value
    }

    /// `=<digits>` (1 to 5 ASCII digits) up to `max`; nil for anything else.
    static func decodeSetting(_ args: ArraySlice<UInt8>, max: Int) -> Int? {
        guard args.first == UInt8(ascii: "="), (2...6).contains(args.count) else { return nil }
        var value = 0
        for b in args.dropFirst() {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(b - UInt8(ascii: "0"))
        }
        return value <= max ? value : nil
    }

    /// The request bytes a client sends: the inverse of `decode` (indexes as ASCII digits).
    public static func encode(_ request: Request) -> [UInt8] {
        var out = request.pin.bytes
        if let door = request.door { out += Array("@\(door):".utf8) }
        switch request.command {
        case .open: out += Array("O=1".utf8)
        case .close: out += Array("O=0".utf8)
        case .status: out += Array("S".utf8)
        case .list: out += Array("P".utf8)
        case .add(let pin): out += Array("A".utf8) + pin.bytes
        case .edit(let slot, let pin): out += Array("E\(slot)".utf8) + pin.bytes
        case .delete(let slot): out += Array("D\(slot)".utf8)
        case .hold(let minutes): out += Array("H=\(minutes)".utf8)
        case .light(let on): out += Array((on ? "L=1" : "L=0").utf8)
        case .closeAfter(let seconds): out += Array("C=\(seconds)".utf8)
        case .local(let c): out += [LocalCommand.letter] + Array(c.argumentText.utf8)
        }
        return out
    }
}
