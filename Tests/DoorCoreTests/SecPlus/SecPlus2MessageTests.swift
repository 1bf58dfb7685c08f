import XCTest
@testable import DoorCore

/// The command layer: the captures read as messages, packets built from fields, the echo rule,
/// and the door's press and release.
final class SecPlus2MessageTests: XCTestCase {
    private let ours = SecPlus2ClientID(0x1234_5539)

    private func message(_ capture: SecPlus2Captures.Capture) throws -> SecPlus2Message {
        SecPlus2Message(try SecPlus2Packet(decoding: capture.bytes))
    }

    /// A STATUS with these argument bytes, read back.
    private func status(nibble: UInt8 = 2, byte1: UInt8, byte2: UInt8) throws -> SecPlus2Message {
        let packet = try SecPlus2Fields(command: .status, nibble: nibble, byte1: byte1, byte2: byte2, client: ours).packet(rolling: 1)
        return SecPlus2Message(packet)
    }

    func testTheFourthCaptureIsAStatusClosed() throws {
        let fields = SecPlus2Fields(try SecPlus2Packet(decoding: SecPlus2Captures.status.bytes))
        XCTAssertEqual(fields, SecPlus2Fields(command: .status, nibble: 2, byte1: 0x60, byte2: 0x03, client: SecPlus2ClientID(0xaad8_002e)))
        XCTAssertEqual(try message(SecPlus2Captures.status),
                       .status(door: .closed, light: true, locked: true, obstructed: false, learning: false))
    }

    func testTheOtherCapturesReadAsTheirCommands() throws {
        let all = SecPlus2Captures.all
        XCTAssertEqual(try message(all[0]), .motion)
        XCTAssertEqual(try message(all[1]), .lock(.toggle))
        XCTAssertEqual(try message(all[2]), .ping)
        XCTAssertEqual(try message(all[4]), .pingResponse)
        XCTAssertEqual(SecPlus2Fields(try SecPlus2Packet(decoding: all[0].bytes)).client, SecPlus2ClientID(0x1895_590c),
                       "fixed's bits 36-39 (0xc) are not part of the client id")
    }

    func testABuiltGetStatusRoundTrips() throws {
        let fields = SecPlus2Fields(command: .getStatus, client: ours)
        let packet = try fields.packet(rolling: 4242)
        XCTAssertEqual(packet.fixed, 0x1234_5539)
        XCTAssertEqual(packet.data & ~0xF000, 0x080)
        let back = try SecPlus2Packet(decoding: packet.encoded)
        XCTAssertEqual(back, packet)
        XCTAssertEqual(back.rolling, 4242)
        XCTAssertEqual(SecPlus2Fields(back), fields)
        XCTAssertEqual(SecPlus2Message(back), .getStatus)
    }

    func testTheLayoutPutsEachFieldWhereTheNotesSay() throws {
        let fields = SecPlus2Fields(command: .setTTC, nibble: 0xA, byte1: 0x01, byte2: 0x2C, client: ours)
        let packet = try fields.packet(rolling: 9)
        XCTAssertEqual(packet.fixed, 0x4_1234_5539, "(command & 0xF00) << 24 | client id")
        XCTAssertEqual(packet.data & ~0xF000, 0x2C01_0A02, "byte2 << 24 | byte1 << 16 | nibble << 8 | (command & 0xFF)")
        XCTAssertEqual(SecPlus2Fields(packet), fields)
        XCTAssertEqual(SecPlus2Message(packet), .setTTC(seconds: 300))
    }

    func testTheEchoRule() throws {
        let packet = try SecPlus2Fields(command: .getStatus, client: ours).packet(rolling: 1)
        XCTAssertTrue(ours.isEcho(packet))
        XCTAssertFalse(SecPlus2ClientID(0x1234_5538).isEcho(packet))
        let fromOpener = try SecPlus2Packet(decoding: SecPlus2Captures.status.bytes)
        XCTAssertFalse(ours.isEcho(fromOpener))
        XCTAssertTrue(SecPlus2ClientID(0xaad8_002e).isEcho(fromOpener), "the id is fixed's low 32 bits, whatever bits 36-39 hold")
    }

    func testADoorMoveIsAPressThenAReleaseWithOneRollingCode() throws {
        let expected: [(SecPlus2DoorMove, SecPlus2ObservedDoorAction, UInt8)] = [(.close, .close, 0), (.open, .open, 1), (.stop, .stop, 3)]
        for (move, seen, nibble) in expected {
            let (press, release) = try move.packets(client: ours, rolling: 700)
            XCTAssertEqual(press.rolling, 700)
            XCTAssertEqual(release.rolling, 700)
            XCTAssertEqual(SecPlus2Fields(press), SecPlus2Fields(command: .doorAction, nibble: nibble, byte1: 1, byte2: 1, client: ours))
            XCTAssertEqual(SecPlus2Fields(release), SecPlus2Fields(command: .doorAction, nibble: nibble, byte1: 0, byte2: 1, client: ours))
            XCTAssertEqual(SecPlus2Message(try SecPlus2Packet(decoding: press.encoded)), .doorAction(seen, pressed: true))
            XCTAssertEqual(SecPlus2Message(try SecPlus2Packet(decoding: release.encoded)), .doorAction(seen, pressed: false))
            XCTAssertTrue(ours.isEcho(press) && ours.isEcho(release))
        }
        XCTAssertEqual(SecPlus2DoorMove.allCases.count, 3, "open, close, stop: no toggle")
    }

    func testTheDoorIsMovedOnlyThroughDoorMove() {
        // Not even stop: every DOOR_ACTION goes through the one type that has no toggle.
        for nibble: UInt8 in [0, 1, 2, 3] {
            XCTAssertThrowsError(try SecPlus2Fields(command: .doorAction, nibble: nibble, byte1: 1, byte2: 1, client: ours).packet(rolling: 1)) {
                XCTAssertEqual($0 as? SecPlus2BuildError, .doorAction)
            }
        }
    }

    func testBuildingRefusesWhatTheWireCannotCarry() {
        XCTAssertThrowsError(try SecPlus2Fields(command: .light, nibble: 16, client: ours).packet(rolling: 1)) {
            XCTAssertEqual($0 as? SecPlus2BuildError, .nibbleRange(16))
        }
        XCTAssertThrowsError(try SecPlus2Fields(command: .light, nibble: 1, client: ours).packet(rolling: 1 << 28)) {
            XCTAssertEqual($0 as? SecPlus2BuildError, .rollingRange(1 << 28))
        }
        XCTAssertThrowsError(try SecPlus2DoorMove.open.packets(client: ours, rolling: .max)) {
            XCTAssertEqual($0 as? SecPlus2BuildError, .rollingRange(.max))
        }
    }

    func testStatusBitsOneByOne() throws {
        XCTAssertEqual(try status(byte1: 0x40, byte2: 0), .status(door: .closed, light: false, locked: false, obstructed: false, learning: false))
        XCTAssertEqual(try status(byte1: 0x00, byte2: 0), .status(door: .closed, light: false, locked: false, obstructed: true, learning: false))
        XCTAssertEqual(try status(byte1: 0x40, byte2: 0x02), .status(door: .closed, light: true, locked: false, obstructed: false, learning: false))
        XCTAssertEqual(try status(byte1: 0x40, byte2: 0x01), .status(door: .closed, light: false, locked: true, obstructed: false, learning: false))
        XCTAssertEqual(try status(byte1: 0x40, byte2: 0x20), .status(door: .closed, light: false, locked: false, obstructed: false, learning: true))
        XCTAssertEqual(try status(byte1: 0xBF, byte2: 0xDC), .status(door: .closed, light: false, locked: false, obstructed: true, learning: false),
                       "the other bits mean nothing here")
    }

    func testDoorStatesFromTheNibble() throws {
        let states: [OpenerDoorState] = [.unknown, .open, .closed, .stopped, .opening, .closing]
        for (nibble, state) in states.enumerated() {
            XCTAssertEqual(try status(nibble: UInt8(nibble), byte1: 0x40, byte2: 0),
                           .status(door: state, light: false, locked: false, obstructed: false, learning: false))
        }
        for nibble: UInt8 in 6...15 { XCTAssertEqual(OpenerDoorState(nibble: nibble), .unknown) }
    }

    func testTheRestOfTheCommands() throws {
        func read(_ command: SecPlus2Command, nibble: UInt8 = 0, byte1: UInt8 = 0, byte2: UInt8 = 0) throws -> SecPlus2Message {
            SecPlus2Message(try SecPlus2Fields(command: command, nibble: nibble, byte1: byte1, byte2: byte2, client: ours).packet(rolling: 3))
        }
        XCTAssertEqual(try read(.openings, byte1: 0x12, byte2: 0x34), .openings(0x1234))
        XCTAssertEqual(try read(.ttc, byte1: 0x02, byte2: 0x58), .ttc(seconds: 600))
        XCTAssertEqual(try read(.light, nibble: 0), .light(.off))
        XCTAssertEqual(try read(.light, nibble: 1), .light(.on))
        XCTAssertEqual(try read(.light, nibble: 2), .light(.toggle))
        XCTAssertEqual(try read(.lock, nibble: 1), .lock(.on))
        XCTAssertEqual(try read(.lock, nibble: 9), .lock(.other(9)))
        XCTAssertEqual(try read(.learn, nibble: 1), .learn(nibble: 1))
        XCTAssertEqual(try read(.motorOn), .motorOn)
        XCTAssertEqual(try read(.obstruction1), .obstruction1)
        XCTAssertEqual(try read(.obstruction2), .obstruction2)
        XCTAssertEqual(try read(.getOpenings), .getOpenings)
        let unnamed = SecPlus2Command(code: 0x123)!
        XCTAssertEqual(try read(unnamed), .other(unnamed))
        XCTAssertNil(SecPlus2Command(code: 0x1000))
    }

    func testCommandNames() {
        XCTAssertEqual(SecPlus2Command.status.description, "STATUS (0x081)")
        XCTAssertEqual(SecPlus2Command.pingResponse.description, "PING_RESP (0x393)")
        XCTAssertEqual(SecPlus2Command(code: 0x09D)!.description, "BATTERY (0x09d)")
        XCTAssertEqual(SecPlus2Command(code: 0x09E)!.description, "0x09e")
        XCTAssertEqual(Set(SecPlus2Command.named.map(\.command.code)).count, SecPlus2Command.named.count)
    }
}
