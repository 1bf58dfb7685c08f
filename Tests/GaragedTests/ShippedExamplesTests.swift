import DoorCore
import Foundation
import XCTest

/// What the package ships and the docs tell people to type is what garaged takes: every PIN the
/// docs show on a command line.
final class ShippedExamplesTests: XCTestCase {
    private static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

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
