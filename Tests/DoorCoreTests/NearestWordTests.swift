import XCTest
@testable import DoorCore

/// "Did you mean": the typos a new user makes in a command or a setting find the word meant,
/// and a word nothing like any known one finds none (a wrong guess would mislead).
final class NearestWordTests: XCTestCase {
    let commands = ["open", "close", "status", "hold", "light", "auto-close", "unlock", "list", "add", "edit",
                    "delete", "label", "log", "who", "pair", "phones", "unpair", "homekit", "init", "master",
                    "check", "import-eeprom", "export", "import", "help"]

    func testTyposFindTheWordMeant() {
        XCTAssertEqual(NearestWord.to("opne", among: commands), "open", "two letters swapped")
        XCTAssertEqual(NearestWord.to("Open", among: commands), "open", "a capital")
        XCTAssertEqual(NearestWord.to("stauts", among: commands), "status")
        XCTAssertEqual(NearestWord.to("autoclose", among: commands), "auto-close", "the hyphen left out")
        XCTAssertEqual(NearestWord.to("stat", among: commands), "status", "the start of one command")
        XCTAssertEqual(NearestWord.to("relya", among: ["relay", "pins", "light"]), "relay")
        XCTAssertEqual(NearestWord.to("puls-ms", among: ["pulse-ms", "travel-s"]), "pulse-ms")
        XCTAssertEqual(NearestWord.to("sensor-close", among: ["sensor-closed", "sensor-open"]), "sensor-closed")
    }

    func testNothingCloseFindsNothing() {
        XCTAssertNil(NearestWord.to("garage", among: commands))
        XCTAssertNil(NearestWord.to("xyz", among: commands))
        XCTAssertNil(NearestWord.to("", among: commands))
        XCTAssertNil(NearestWord.to("im", among: commands), "too short to be the start of import or import-eeprom")
        XCTAssertNil(NearestWord.to("imp", among: commands), "the start of two commands")
    }
}
