import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Under systemd garaged's stderr is the journal, and each line carries its priority, so
/// `journalctl -u garaged -p warning` finds the warnings (it used to find nothing: every line
/// went in as plain text). A real systemd-journald, in a mount namespace of the test's own (tmpfs
/// over /run and the journal's folder, so the machine's journal is untouched); garaged's output
/// connected to it by systemd-cat with JOURNAL_STREAM set as systemd sets it; read back with
/// journalctl.
final class JournalTests: GaragedTestCase {
    func testTheJournalKeepsEachLinesPriority() throws {
        guard getuid() == 0 else { throw XCTSkip("a mount namespace and journald need root") }
        let journald = "/lib/systemd/systemd-journald"
        guard access(journald, X_OK) == 0 else { throw XCTSkip("no \(journald)") }
        try initTable()
        let garaged = try Binaries.path(of: "garaged")
        let script = """
            set -eu
            mount -t tmpfs tmpfs /run
            if [ -d /var/log/journal ]; then mount -t tmpfs tmpfs /var/log/journal; fi
            mkdir -p /run/systemd/journal /run/log/journal
            \(journald) & J=$!
            trap 'kill $J 2>/dev/null || true' EXIT
            for _ in $(seq 1 500); do [ -S /run/systemd/journal/stdout ] && break; sleep 0.01; done
            systemd-cat -t garaged-test --level-prefix=true sh -c \\
                'export JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2); exec "$0" "$@"' \\
                \(garaged) --pins \(pinsPath) --socket \(socketPath) --relay sim:\(tracePath) --no-ble &
            G=$!
            for _ in $(seq 1 500); do [ -S \(socketPath) ] && break; sleep 0.01; done
            kill -TERM $G
            wait $G || true
            for _ in $(seq 1 500); do journalctl -t garaged-test -o cat | grep -q '^INFO stopped' && break; sleep 0.01; done
            echo "== json"
            journalctl -t garaged-test -o json --output-fields=PRIORITY,MESSAGE --no-pager
            echo "== warning"
            journalctl -t garaged-test -p warning -o cat --no-pager
            """
        try write(Array(script.utf8), to: dir + "/journal.sh")
        let unshare = try Binaries.system("unshare", package: "util-linux")
        let run = try spawn(unshare, ["-m", "/bin/sh", dir + "/journal.sh"], name: "journal")
        XCTAssertEqual(run.waitForExit(timeout: .seconds(30)), .exited(0), run.stderr)
        let parts = run.stdout.components(separatedBy: "== warning\n")
        XCTAssertEqual(parts.count, 2, run.stdout + run.stderr)
        let entries = parts[0].split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap { json(String($0)) as? [String: Any] }
        func priority(of prefix: String) -> String? {
            entries.first { ($0["MESSAGE"] as? String)?.hasPrefix(prefix) == true }?["PRIORITY"] as? String
        }
        XCTAssertEqual(priority(of: "INFO start "), "6", parts[0])
        XCTAssertEqual(priority(of: "WARN auto-close-blind "), "4", parts[0])
        XCTAssertFalse(entries.contains { ($0["MESSAGE"] as? String)?.hasPrefix("<") == true }, "journald took the prefix off")
        XCTAssertFalse(entries.contains { ($0["MESSAGE"] as? String)?.hasPrefix("20") == true }, "no timestamp of garaged's own")
        let warnings = parts.count == 2 ? parts[1] : ""
        XCTAssertTrue(warnings.contains("WARN auto-close-blind"), warnings)
        XCTAssertFalse(warnings.contains("INFO "), "-p warning finds warnings only: \(warnings)")
    }
}
