import DoorCore
import HAPLibCrypto

/// Real crypto for the HomeKit cases: libcrypto, as garaged uses it.
private let crypto = LibCrypto()

/// Saves nothing: the fuzzer exercises the controller's logic, not the disk.
private struct NullStore: PinTableSaving {
    func save(_ table: PinTable) throws(StoreError) {}
}

/// One fuzz input: the first byte picks a parser, the rest is its input. Each branch checks
/// what the product promises for any bytes at all (no crash, records of at most 20 bytes over
/// Bluetooth, round trips), and traps when a promise is broken. Selectors 8 to 11 (TLV8, HTTP,
/// HomeKit's frames and pairing) came later, 12 (the change of keys) after them, and 13 (the
/// Security+ 2.0 wall-wire receiver) last: 5 still falls to the controller case.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let input = Array(bytes.dropFirst())
    switch bytes[0] % 14 {
    case 0:  // the command codec: a request decoded and encoded again is the same request
        if case .success(let request) = CommandCodec.decode(input) {
            precondition(CommandCodec.decode(CommandCodec.encode(request)) == .success(request))
        }
    case 1:  // the ATT server: PDUs split by a length byte; nothing outgrows the MTU
        var server = ATTServer(gatt: try! GarageGATT())
        var rest = input[...]
        while let n = rest.first {
            let pdu = Array(rest.dropFirst().prefix(Int(n)))
            rest = rest.dropFirst(1 + Int(n))
            let out = server.answer(pdu)
            if let response = out.response { precondition(response.count <= Int(server.mtu)) }
            if let command = out.command { precondition(command.count <= Int(server.mtu) - 3) }
        }
        _ = try? server.notification(Array("ERR LOCKED 900".utf8))
    case 2:  // the EEPROM layout: whatever decodes encodes back to the same bytes
        var image = Array(input.prefix(EEPROMLayout.size))
        if bytes.count % 2 == 0 { image += [UInt8](repeating: 0xFF, count: EEPROMLayout.size - image.count) }
        if let table = try? EEPROMLayout.decode(image) {
            precondition(EEPROMLayout.encode(table) == image || image.contains { $0 > 1 && $0 != 0xFF })
            precondition(try! EEPROMLayout.decode(EEPROMLayout.encode(table)) == table)
        }
    case 3:  // the event history: torn or corrupt records are skipped, never fatal
        _ = EventCodec.decodeAll(input)
    case 4:  // the line framer: no line is ever longer than the limit
        var framer = LineFramer(maxLength: 64)
        var rest = input[...]
        while !rest.isEmpty {
            let n = Int(rest.first! % 17) + 1
            for item in framer.feed(rest.prefix(n)) {
                if case .line(let line) = item { precondition(line.count <= 64) }
            }
            rest = rest.dropFirst(n)
        }
    case 6:  // paired mode: the link changes between PDUs; a command comes out only of a write
             // over an LE Secure Connections link with a bonded phone and a 16-octet key
        var server = ATTServer(gatt: try! GarageGATT(security: .paired))
        var rest = input[...]
        while rest.count >= 2 {
            let link = rest.first!, n = Int(rest.dropFirst().first!)
            let pdu = Array(rest.dropFirst(2).prefix(n))
            rest = rest.dropFirst(2 + n)
            server.link = LinkSecurity(level: LinkSecurity.Level(rawValue: link % 4 + 1)!, keySize: link & 0x10 != 0 ? 16 : 7,
                                       bonded: link & 0x20 != 0)
            let out = server.answer(pdu)
            if out.command != nil { precondition(server.link.refusalForPairedWrite == nil) }
        }
    case 7:  // the kernel's management events and the bonds file: anything decodes or is refused,
             // and a bonds file that decodes is written back to the same phones
        _ = ManagementEvent.decode(input)
        if case .success(let phones) = BondedPhones.decode(input) {
            precondition(BondedPhones.decode(phones.encoded()) == .success(phones))
        }
    case 8:  // TLV8: what decodes is written back to bytes that decode to the same items, and
             // items of any lengths (0, 255, 510... in a row of one type) read back as written
        if let items = try? TLV8.decode(input) {
            let again = try! TLV8.decode(TLV8.encode(items.map { ($0.type, $0.value) }))
            precondition(again.map(\.type) == items.map(\.type) && again.map(\.value) == items.map(\.value))
        }
        let lengths = [0, 1, 254, 255, 256, 509, 510, 511]
        var made: [(UInt8, [UInt8])] = []
        for i in stride(from: 0, to: input.count - 1, by: 2) {
            let fill = input[i + 1]
            made.append((input[i] % 3, [UInt8](repeating: fill, count: lengths[Int(fill % 8)])))
        }
        let back = try! TLV8.decode(TLV8.encode(made))
        precondition(back.map { $0.type } == made.map { $0.0 } && back.map { $0.value } == made.map { $0.1 })
    case 9:  // the HAP server's HTTP parser: fed in chunks of varying size it yields the same
             // requests, and the same refusal, as fed at once; every body is its Content-Length
        func run(_ chunks: [ArraySlice<UInt8>]) -> ([HTTPRequest], HTTPParseError?) {
            var parser = HTTPRequestParser(maxHeaderBytes: 160, maxBodyBytes: 48)
            var requests: [HTTPRequest] = []
            for chunk in chunks {
                parser.feed(chunk)
                do {
                    while let request = try parser.next() { requests.append(request) }
                } catch {
                    return (requests, error)
                }
            }
            return (requests, nil)
        }
        guard let seed = input.first else { break }
        let data = input.dropFirst()
        var chunks: [ArraySlice<UInt8>] = []
        var rest = data, state = UInt32(seed)
        while !rest.isEmpty {
            state = state &* 1_103_515_245 &+ 12_345
            let n = Int(state >> 16) % 23 + 1
            chunks.append(rest.prefix(n))
            rest = rest.dropFirst(n)
        }
        let (requests, refusal) = run(chunks), whole = run([data])
        precondition(requests == whole.0 && refusal == whole.1)
        for request in requests {
            precondition(request.body.count == Int(request.header("content-length") ?? "0")!)
            precondition(request.body.count <= 48)
        }
    case 10:  // HomeKit's session frames, with real ChaCha20-Poly1305: what one side seals the
              // other opens, however the bytes are split; bytes nobody sealed never open; a
              // flipped byte never yields plaintext that was not sent
        guard let seed = input.first else { break }
        let key = [UInt8](repeating: 7, count: 32)
        var writer = HAPSessionCipher(readKey: key, writeKey: key, crypto: crypto)
        let plain = Array(input.dropFirst())
        let sealed = writer.seal(plain)
        func openAll(_ bytes: [UInt8], split: Int) -> ([UInt8], Bool) {
            var reader = HAPSessionCipher(readKey: key, writeKey: key, crypto: crypto)
            var out: [UInt8] = []
            var at = 0
            while at < bytes.count {
                let n = min(bytes.count - at, split)
                switch reader.open(Array(bytes[at..<at + n])) {
                case .plaintext(let p): out += p
                case .broken: return (out, true)
                }
                at += n
            }
            return (out, false)
        }
        let (whole, wholeBroken) = openAll(sealed, split: Int(seed) % 97 + 1)
        precondition(!wholeBroken && whole == plain)
        let (noise, _) = openAll(plain, split: Int(seed) % 13 + 1)
        precondition(noise.isEmpty)
        if !sealed.isEmpty {
            var damaged = sealed
            damaged[Int(seed) * 31 % damaged.count] ^= 0x01
            let (got, _) = openAll(damaged, split: Int(seed) % 7 + 1)
            precondition(got.count <= plain.count && Array(plain.prefix(got.count)) == got)
        }
    case 11:  // pair-setup and pair-verify fed any bodies in any order: every reply is TLV8 with
              // a state, and nobody pairs or verifies without the code or a paired key
        var setup = PairSetup()
        var verify = PairVerify()
        let accessory = HAPAccessoryState(id: "AA:BB:CC:DD:EE:FF", seed: [UInt8](repeating: 3, count: 32),
                                          setupCode: "318-42-907", setupID: "7Q2K")
        for (i, body) in input.split(separator: 0xFF, omittingEmptySubsequences: false).prefix(8).enumerated() {
            let (reply, effect) = setup.step(Array(body), connection: i % 2, accessory: accessory, crypto: crypto,
                                               at: Instant(nanoseconds: UInt64(i) * 1_000_000_000))
            precondition(effect == nil || effect == .failed)
            precondition((try? TLV8.decode(reply)).flatMap { TLV8.first(.state, in: $0) } != nil)
            let (answer, verified) = verify.step(Array(body), accessory: accessory, crypto: crypto)
            precondition(verified == nil)
            precondition((try? TLV8.decode(answer)).flatMap { TLV8.first(.state, in: $0) } != nil)
        }
    case 12:  // the change of keys: pair-verify's M3, then any bytes in the clear, then the
              // controller's sealed requests, cut where the input says; nothing read in the clear
              // behind M3 is ever run, and a clean M3 runs every sealed request
        let injected = Array(input.prefix(while: { $0 != 0xFF }))
        let cuts = input.dropFirst(injected.count + 1)
        let key = [UInt8](repeating: 9, count: 32)
        var controller = HAPSessionCipher(readKey: key, writeKey: key, crypto: crypto)
        // The controller's frame comes only after M4, so never in M3's read; the rest is cut
        // where the input says.
        let clear = Array("POST /pair-verify HTTP/1.1\r\nContent-Length: 3\r\n\r\n\u{6}\u{1}\u{3}".utf8) + injected
        var chunks: [[UInt8]] = []
        var at = 0
        var sizes = cuts.makeIterator()
        while at < clear.count {
            let n = Int(sizes.next() ?? 255) + 1
            chunks.append(Array(clear[at..<min(clear.count, at + n)]))
            at += n
        }
        chunks.append(controller.seal(Array("GET /accessories HTTP/1.1\r\n\r\n".utf8)))
        var stream = HAPRequestStream()
        var ran = 0, closed = false
        for chunk in chunks where !closed {
            if (try? stream.feed(chunk)) == nil { closed = true }
            while !closed, let request = try? stream.next() {
                if stream.isSecure {
                    ran += 1
                } else if request.path != "/pair-verify" || !stream.secure(with: HAPSessionCipher(readKey: key, writeKey: key, crypto: crypto)) {
                    closed = true
                }
            }
        }
        precondition(injected.isEmpty ? ran == 1 : ran == 0)
    case 13:  // the Security+ 2.0 receiver: any bytes, cut and timed where the input says, never
              // crash it; every packet it yields encodes back to its own 19 bytes, what it refuses
              // is 19 bytes after a sync, and what it drops as stale is a shorter start of one
        guard let seed = input.first else { break }
        var receiver = SecPlus2Receiver()
        var rest = input.dropFirst()
        var state = UInt32(seed), ms: UInt64 = 0
        while !rest.isEmpty {
            state = state &* 1_103_515_245 &+ 12_345
            let n = Int(state >> 16) % 23 + 1
            ms += UInt64(state >> 24 & 0x7F)  // 0 to 127 ms: some reads come after a partial packet went stale
            for item in receiver.feed(rest.prefix(n), at: Instant(nanoseconds: ms * 1_000_000)) {
                switch item {
                case .packet(let packet, let bytes):
                    precondition(packet.encoded == bytes)
                case .refused(let bytes, _):
                    precondition(bytes.count == SecPlus2Packet.length && Array(bytes.prefix(3)) == SecPlus2Packet.sync)
                case .dropped(let bytes):
                    precondition(bytes.count < SecPlus2Packet.length && Array(bytes.prefix(3)) == SecPlus2Packet.sync)
                }
            }
            rest = rest.dropFirst(n)
        }
    default:  // the controller over Bluetooth with a sensed door: every reply and every push fits
              // one notification, and no press goes toward the end a switch says the door is at
        let timing = DoorTiming(pulse: .milliseconds(300), travel: .seconds(3), autoClose: .seconds(2),
                                warning: .seconds(1), leftOpen: .seconds(5), light: .seconds(2))
        var controller = Controller(table: try! PinTable(master: PIN("12345")!, capacity: 4),
                                    door: Door(timing: timing, sensing: DoorSensing(closedSwitch: true, openSwitch: true),
                                               closed: true), store: NullStore())
        let remote = RequestSource("fuzz", channel: .remote)
        var ms: UInt64 = 0
        for line in input.split(separator: 0x0A, omittingEmptySubsequences: false) {
            ms += 700
            let now = Instant(nanoseconds: ms * 1_000_000)
            let outcome: Controller.Outcome
            // A line starting with a control byte is something the door sees instead of a request.
            switch line.first {
            case 0x01: outcome = controller.sensor(.closed, active: line.count > 1, at: now)
            case 0x02: outcome = controller.sensor(.open, active: line.count > 1, at: now)
            case 0x03: outcome = controller.pressEnded(at: now)
            case 0x04: outcome = controller.tick(at: now)
            default: outcome = controller.judgeAndAccount(Array(line), from: remote, at: now)
            }
            // The phones' notices are the snapshot's (`Controller.notices`), each a record as a reply is.
            for reply in outcome.replies + controller.notices.latest { precondition(reply.bytes.count <= Reply.maxRecordLength) }
            // As the daemon does: a warning output that went on is confirmed at once.
            if outcome.door.contains(.warning(on: true)) { controller.warningShown(at: now) }
            for press in outcome.presses.map(\.reason) {
                let door = controller.door
                if press == .open { precondition(!(door.isActive(.open) == true && door.isActive(.closed) != true)) }
                else { precondition(!(door.isActive(.closed) == true && door.isActive(.open) != true)) }
            }
        }
    }
    return 0
}
