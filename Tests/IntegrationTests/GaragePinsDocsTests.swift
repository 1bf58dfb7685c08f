import Foundation
import XCTest

/// The shell completions in packaging/completions are what `scripts/generate-docs.sh` makes
/// from the command definitions; a change to a command without regenerating them fails here.
final class GaragePinsDocsTests: GaragedTestCase {
    func testCommittedCompletionsMatchTheCommandDefinitions() throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        for (shell, file) in [("bash", "garage-pins.bash"), ("zsh", "_garage-pins"), ("fish", "garage-pins.fish")] {
            let generated = try garagePins(["--generate-completion-script", shell])
            XCTAssertEqual(generated.termination, .exited(0), generated.stderr)
            let committed = readText("\(repo)/packaging/completions/\(file)")
            XCTAssertEqual(generated.stdout, committed, "packaging/completions/\(file) is stale: run scripts/generate-docs.sh")
        }
        let man = readText("\(repo)/docs/man/garage-pins.1")
        for sub in ["import-eeprom", "who", "label", "export"] {
            XCTAssertTrue(man.contains(sub), "docs/man/garage-pins.1 lacks \(sub): run scripts/generate-docs.sh")
        }
    }
}
