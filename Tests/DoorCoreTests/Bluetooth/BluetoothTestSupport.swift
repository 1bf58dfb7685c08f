import XCTest
@testable import DoorCore

/// Bytes from hex as btmon prints them ("02 17 00"); spaces optional. Traps on bad literals.
func wire(_ hex: String) -> [UInt8] {
    let digits = hex.filter { !$0.isWhitespace }.map { Hex.nibble(UInt8($0.asciiValue!))! }
    precondition(digits.count % 2 == 0, "odd hex literal")
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// The garage's 128-bit UUIDs as they go on the wire (least significant byte first).
enum UART {
    static let service = "9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 01 00 40 6E"
    static let command = "9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 02 00 40 6E"
    static let reply = "9E CA DC 24 0E E5 A9 E0 93 F3 A3 B5 03 00 40 6E"
}

/// A fresh server on the default garage database, as at the start of a connection.
func garageServer(name: String = "Garage", serverRxMTU: UInt16 = 247) -> ATTServer {
    ATTServer(gatt: try! GarageGATT(name: name), serverRxMTU: serverRxMTU)
}

extension ATTServer {
    /// Handles `hex` and returns the response as hex (nil for silence), for byte-exact asserts.
    mutating func respond(_ hex: String) -> String? {
        let out = answer(wire(hex))
        return out.response.map { Hex.string($0) }
    }
}

/// Normalises a hex literal to Hex's spacing, so expectations can be written freely.
func spaced(_ hex: String) -> String { Hex.string(wire(hex)) }
