import Foundation
import XCTest

/// HomeKit for a door a Security+ 2.0 opener reports (issue 31), through aiohomekit
/// (`Tests/homekit/hapctl.py`) against Tests/secplus/fakeopener.py on a pty: the lock of its
/// remotes (LockCurrentState, LockTargetState on the garage door service), its light (a
/// Lightbulb with no light wired), its photo-eyes (ObstructionDetected) and its motion sensor
/// (a MotionSensor, by event).
final class HomeKitOpenerTests: GaragedTestCase {
    /// The one door's characteristics: its photo-eyes, the lock's current and target state, the
    /// light, motion.
    static let obstruction = "1.19", lockCurrent = "1.21", lockTarget = "1.22", light = "1.33", motion = "1.49"

    /// One characteristic's value as HomeKit reads it now (booleans as 0 and 1), nil when the read failed.
    private func read(_ char: String, port: String) -> Int? {
        guard let r = try? hap(["get", "--pairing", pairingFile, "--port", port, "--char", char]), r.termination == .exited(0) else { return nil }
        return homekitValues(r)[char]
    }

    func testTheLockTheLightThePhotoEyesAndMotionOfAnOpenerDoor() throws {
        _ = try python()  // skipped, not failed, without aiohomekit
        try initTable()
        try startOpener()
        let daemon = try startGaragedWithOpener(["--homekit", "--homekit-port", "0", "--homekit-bind", "127.0.0.1"],
                                                name: "garaged-opener-homekit")
        XCTAssertTrue(waitUntil("the opener connected, its lock known", timeout: .seconds(10)) {
            doorStatus(daemon).contains(#""state":"connected","remotes_locked":false"#)
        }, doorStatus(daemon))
        XCTAssertEqual(try homekitPair(daemon).termination, .exited(0))
        let port = try homekitPort(daemon)

        // Parsed, and so validated, by aiohomekit's model.
        let types = try hap(["accessories", "--pairing", pairingFile, "--port", port])
        XCTAssertEqual(types.termination, .exited(0), types.stdout + types.stderr)
        let accessories = (json(types.stdout) as? [String: Any])?["accessories"] as? [[String: Any]]
        let services = (accessories?.first?["services"] as? [[String: Any]]) ?? []
        let serviceTypes = services.compactMap { $0["type"] as? String }.map(HomeKitOpenerTests.shortType)
        XCTAssertTrue(serviceTypes.contains("41") && serviceTypes.contains("43") && serviceTypes.contains("85"),
                      "a garage door, a Lightbulb with no light wired, a MotionSensor: \(serviceTypes)")

        let start = try hap(["get", "--pairing", pairingFile, "--port", port, "--char", Self.lockCurrent, "--char", Self.lockTarget,
                             "--char", Self.light, "--char", Self.obstruction, "--char", Self.motion])
        XCTAssertEqual(homekitValues(start), [Self.lockCurrent: 0, Self.lockTarget: 0, Self.light: 0, Self.obstruction: 0, Self.motion: 0],
                       "unsecured, dark, clear, still: " + start.stdout + start.stderr)

        let lock = try hap(["put", "--pairing", pairingFile, "--port", port, "--char", Self.lockTarget + "=1"])
        XCTAssertEqual(lock.termination, .exited(0), lock.stdout + lock.stderr)
        XCTAssertTrue(waitUntil("the opener got LOCK on", timeout: .seconds(5)) {
            openerPackets().contains { $0.name == "LOCK" && $0.nibble == 1 && $0.accepted == true }
        }, "\(openerPackets().compactMap(\.name))")
        XCTAssertTrue(waitUntil("the lock reads secured, as the opener says", timeout: .seconds(10)) {
            read(Self.lockCurrent, port: port) == 1
        }, doorStatus(daemon))
        XCTAssertEqual(read(Self.lockTarget, port: port), 1)

        let on = try hap(["put", "--pairing", pairingFile, "--port", port, "--char", Self.light + "=true"])
        XCTAssertEqual(on.termination, .exited(0), on.stdout + on.stderr)
        XCTAssertTrue(waitUntil("the opener got LIGHT on", timeout: .seconds(5)) {
            openerPackets().contains { $0.name == "LIGHT" && $0.nibble == 1 && $0.accepted == true }
        }, "\(openerPackets().compactMap(\.name))")
        XCTAssertTrue(waitUntil("the light reads on", timeout: .seconds(10)) { read(Self.light, port: port) == 1 }, doorStatus(daemon))

        try tell("obstruct")
        XCTAssertTrue(waitUntil("ObstructionDetected, from the opener's photo-eyes", timeout: .seconds(10)) {
            read(Self.obstruction, port: port) == 1
        }, doorStatus(daemon))

        let ready = dir + "/watching"
        let watch = try spawn(try python(), [hapctl, "watch", "--pairing", pairingFile, "--port", port, "--char", Self.motion,
                                             "--until", Self.motion + "=true", "--ready-file", ready, "--timeout", "30"],
                              name: "hapctl-watch-motion")
        XCTAssertTrue(waitUntil("the subscription", timeout: .seconds(20)) { FileManager.default.fileExists(atPath: ready) })
        try tell("motion")
        XCTAssertEqual(watch.waitForExit(timeout: .seconds(30)), .exited(0), "MotionDetected's event: " + watch.stdout + watch.stderr)
        XCTAssertEqual(read(Self.motion, port: port), 1)
        XCTAssertEqual(daemon.stop(), .exited(0))
    }

    /// `0000001D-0000-1000-8000-0026BB765291` or `1D`: HAP's short form of a type.
    private static func shortType(_ type: String) -> String {
        let head = type.split(separator: "-").first.map(String.init) ?? type
        let trimmed = head.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : trimmed.uppercased()
    }
}
