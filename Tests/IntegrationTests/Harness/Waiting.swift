import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: the clock the simulated relay stamps its trace with, so a test
/// can compare its own instants with the trace's. (Swift's ContinuousClock is CLOCK_BOOTTIME.)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

extension Duration {
    /// Whole nanoseconds, for deadlines on CLOCK_MONOTONIC.
    var totalNanoseconds: UInt64 {
        let c = components
        return UInt64(max(0, c.seconds)) * 1_000_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000)
    }
}

/// Polls `condition` every millisecond until it holds or `timeout` passes; true if it held.
/// This is the only way the tests wait: a short poll interval keeps them fast, the deadline keeps
/// a broken daemon from hanging the suite. Use `waitUntil` when the condition must hold.
func eventually(within timeout: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = monotonicNanoseconds() + timeout.totalNanoseconds
    while true {
        if try condition() { return true }
        if monotonicNanoseconds() >= deadline { return false }
        usleep(1000)
    }
}

/// `eventually`, but a missed deadline fails the test with what was awaited, so a failure reads
/// "timed out after 3 s waiting for: S OPEN" rather than a bare assertion at some later line.
@discardableResult
func waitUntil(_ what: @autoclosure () -> String, timeout: Duration,
               file: StaticString = #filePath, line: UInt = #line,
               _ condition: () throws -> Bool) rethrows -> Bool {
    let start = monotonicNanoseconds()
    if try eventually(within: timeout, condition) { return true }
    let waited = Double(monotonicNanoseconds() - start) / 1e9
    XCTFail("timed out after \(String(format: "%.2f", waited)) s waiting for: \(what())", file: file, line: line)
    return false
}
