import DoorSystem
import XCTest
@testable import DoorCore

/// The one hex helper, and base64 from OpenSSL (HomeKit's `sh` record), against RFC 4648's
/// test vectors.
final class HexAndBase64Tests: XCTestCase {
    func testBase64IsRFC4648() {
        for (text, encoded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                                ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")] {
            XCTAssertEqual(LibCrypto.base64(Array(text.utf8)), encoded, text)
        }
    }

    func testHexReadsAndWritesEveryForm() {
        XCTAssertEqual(Hex.string([0x02, 0x01, 0xAF]), "02 01 AF")
        XCTAssertEqual(Hex.string([0x0A, 0xFF], separator: "", lowercase: true), "0aff")
        XCTAssertEqual(Hex.literal(0x0A), "0x0A")
        XCTAssertEqual(Hex.bytes("0aFF"), [0x0A, 0xFF])
        XCTAssertNil(Hex.bytes("0aF"))
        XCTAssertNil(Hex.bytes("0g"))
        XCTAssertEqual(Hex.constant("""
            0A FF
            10
            """), [0x0A, 0xFF, 0x10])
    }

    /// Text printed for the owner escapes each control character with the same hex: ESC, DEL
    /// and a C1 control as two lowercase digits, so a value can neither start a line nor send
    /// the terminal a sequence; anything else stays as it was.
    func testControlCharactersAreEscapedInLowercaseHex() {
        XCTAssertEqual("evil\nINFO \u{1B}[31mred\u{7F}\u{9B}\t\r".escapingControlCharacters,
                       "evil\\nINFO \\x1b[31mred\\x7f\\x9b\\t\\r")
        XCTAssertEqual("\u{0}\u{1F}".escapingControlCharacters, "\\x00\\x1f")
        XCTAssertEqual("Garage – Süd 🚗".escapingControlCharacters, "Garage – Süd 🚗")
    }
}
