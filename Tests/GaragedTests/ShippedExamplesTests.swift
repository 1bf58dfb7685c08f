import DoorCore
import Foundation
@testable import GaragedKit
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// What the package ships and the docs tell people to type is what garaged takes: the example
/// config (`/etc/garaged.conf`) with its commented settings turned on, and every PIN the docs
/// show on a command line.
final class ShippedExamplesTests: XCTestCase {
    private static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// One reading of the example: which commented settings an owner would turn on together.
    private enum Door {
        /// One door moved by a relay: every setting above the sections, `opener` left out.
        case relay
        /// One door moved by a Security+ 2.0 opener, as the example's comment says: `relay`
        /// commented out, and no switches (the opener reports the door and its photo-eyes).
        case opener
        /// Several doors: the sections at the end, every door setting moved out of the top
        /// (the example's own instruction), the settings for all doors kept there.
        case sections
    }

    /// A `key = value` line of the example, commented or not, when `key` is a setting.
    private static func setting(_ line: Substring) -> (key: String, value: String)? {
        let text = line.hasPrefix("# ") ? line.dropFirst(2) : line
        guard let eq = text.range(of: " = ") else { return nil }
        let key = String(text[..<eq.lowerBound])
        guard Catalog.all.contains(where: { $0.key == key }) else { return nil }
        return (key, String(text[eq.upperBound...]))
    }

    /// The example with the settings of `door` turned on: where a key is set twice (the
    /// shipped simulated relay, then `# relay = gpiochip0:17`), the later one, the real
    /// device, is the one an owner turns on. What only exists on the machine that runs it is
    /// pointed at a stand-in: the MQTT password at a file in `dir`, the socket's group at this
    /// process's group; and the CA comes with an mqtts:// broker, as its comment says.
    private static func turnedOn(_ example: String, _ door: Door, in dir: TempFolder) throws -> (text: String, keys: Set<String>) {
        let lines = example.split(separator: "\n", omittingEmptySubsequences: false)
        let sectionStart = lines.firstIndex { $0.hasPrefix("# [door ") } ?? lines.endIndex
        let perDoor = Set(Catalog.all.filter(\.perDoor).map(\.key))
        let leftOut: Set<String> = switch door {
        case .relay: ["opener", "motion-s"]
        case .opener: ["relay", "sensor-closed", "sensor-open", "sensor-obstruction"]
        case .sections: perDoor
        }
        var top: [(key: String, value: String)] = []
        for line in lines[..<sectionStart] {
            guard let found = setting(line), !leftOut.contains(found.key) else { continue }
            top.removeAll { $0.key == found.key }
            top.append(found)
        }
        let password = try dir.write("mqtt-password", "example\n")
        let group = String(cString: getgrgid(getgid()).pointee.gr_name)
        let hasCA = top.contains { $0.key == "mqtt-ca" }
        top = top.map { found in
            switch found.key {
            case "mqtt-password-file": return (found.key, password)
            case "socket-group": return (found.key, group)
            case "mqtt" where hasCA: return (found.key, found.value.replacingOccurrences(of: "mqtt://", with: "mqtts://"))
            default: return found
            }
        }
        var text = top.map { "\($0.key) = \($0.value)" }
        var keys = Set(top.map { $0.key })
        if door == .sections {
            for line in lines[sectionStart...] where line.hasPrefix("# ") {
                let uncommented = line.dropFirst(2)
                if uncommented.hasPrefix("[door ") {
                    text.append(String(uncommented))
                } else if let found = setting(line) {
                    text.append("\(found.key) = \(found.value)")
                    keys.insert(found.key)
                }
            }
        }
        return (text.joined(separator: "\n") + "\n", keys)
    }

    /// packaging/garaged.conf.example, every commented setting turned on (for one relay door,
    /// one opener door, and the sections), is accepted, and no two settings name one line:
    /// the suggestions an owner follows one by one never end in a refusal at start.
    func testTheExampleConfigWithItsSettingsTurnedOnIsAccepted() throws {
        let example = try String(contentsOfFile: Self.repo + "/packaging/garaged.conf.example", encoding: .utf8)
        let dir = try TempFolder()
        var covered = Set<String>()
        for door in [Door.relay, .opener, .sections] {
            let (text, keys) = try Self.turnedOn(example, door, in: dir)
            covered.formUnion(keys)
            let path = try dir.write("garaged-\(door).conf", text)
            let accepted: Settings
            do {
                accepted = try settings(["--config", path])
            } catch {
                XCTFail("packaging/garaged.conf.example with its commented settings turned on (\(door)) is refused: \(error)\n\(text)")
                continue
            }
            let lines = accepted.doors.flatMap(\.lines)
            XCTAssertEqual(Set(lines.map { $0.spec }).count, lines.count, "two settings name one line (\(door)): \(lines.map { "\($0.role) \($0.spec)" })")
            switch door {
            case .relay:
                XCTAssertEqual(lines.map { $0.role }.sorted(), ["closed switch", "light", "open switch", "photo-eye", "relay", "warning output"], "\(lines)")
                XCTAssertFalse(lines.contains { "\($0.spec)".hasPrefix("sim:") }, "the real relay line replaces the simulated one: \(lines)")
            case .opener:
                XCTAssertNotNil(accepted.door.opener, text)
            case .sections:
                XCTAssertEqual(accepted.doors.map(\.id), ["left", "gate"])
            }
        }
        let shown = Set(example.split(separator: "\n").compactMap { Self.setting($0)?.key })
        XCTAssertEqual(shown.subtracting(covered), [], "settings of the example no reading turned on")
    }

    /// Every PIN the docs, the package's messages and `make install` show on a command line
    /// (`--master 'Yours'`, `--pin 12345`, `GARAGE_PIN=...`) is one garage-pins takes: 5
    /// printable ASCII characters, no spaces. Placeholders in capitals (`--pin PIN`) are
    /// names, not PINs.
    func testEveryPINTheDocsShowIsOneGaragePinsTakes() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.repo + "/docs")
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let files = ["README.md", "wiring/README.md", "packaging/debian/postinst", "Makefile"] + docs
        let pattern = try NSRegularExpression(pattern: #"(?:--master|--pin)[ =](?:'([^']*)'|"([^"]*)"|([^\s'"`|),;]+))|GARAGE_PIN=([^\s`|),;]+)"#)
        var found = 0
        for file in files {
            let text = try String(contentsOfFile: Self.repo + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    guard let value = (1...4).lazy.compactMap({ Range(match.range(at: $0), in: line).map { String(line[$0]) } }).first,
                          !value.hasPrefix("-"), !value.contains("$"), value.contains(where: { !$0.isUppercase }) else { continue }
                    found += 1
                    XCTAssertNotNil(PIN(value), "\(file):\(number + 1): '\(value)' is not a PIN garage-pins takes (5 printable ASCII characters, no spaces): \(line)")
                }
            }
        }
        XCTAssertGreaterThan(found, 10, "the scan found too few PINs: has the docs' form changed?")
    }
}
