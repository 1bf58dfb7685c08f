@testable import DoorCore

/// PINs used across the tests; force-unwrapped because the literals are known-good.
func pin(_ s: String) -> PIN { PIN(s)! }

/// Instants in whole milliseconds from an arbitrary origin, to keep timelines readable.
func t(_ ms: Int) -> Instant { Instant(nanoseconds: 1_000_000_000 + UInt64(ms) * 1_000_000) }

/// No channel locked and no wrong PIN left unforgiven at `now`, as the status's lockouts tell it.
func lockoutsClear(_ c: Controller, at now: Instant) -> Bool {
    c.snapshot(at: now).lockouts.allSatisfy { $0.lockedUntil == nil && $0.failures == 0 }
}

/// A store that keeps what it was given in memory, or fails on demand like a full disk.
final class MemoryStore: PinTableSaving, @unchecked Sendable {
    var saved: [PinTable] = []
    var failing = false

    func save(_ table: PinTable) throws(StoreError) {
        if failing { throw .io(path: "memory", action: "write", errno: 28) }
        saved.append(table)
    }
}

/// Where a failed close is kept, in memory: each save in order.
final class MemoryDoorState: DoorStateSaving, @unchecked Sendable {
    var saved: [Bool] = []

    func save(closeFailed: Bool, at time: Int64) throws(StoreError) { saved.append(closeFailed) }
}

extension DoorCapabilities {
    /// A relay door's table, through the one derivation: a wired light and photo-eye where asked.
    static func relay(light: Bool = false, photoEye: Bool = false) -> DoorCapabilities {
        var timing = DoorTiming.book
        timing.light = light ? .seconds(60) : nil
        return DoorCapabilities(sensing: DoorSensing(obstructionSwitch: photoEye), timing: timing)
    }

    /// An opener door's table, of `kind`, warned by the opener's light.
    static func opener(_ kind: OpenerKind = .secPlus2) -> DoorCapabilities {
        var timing = DoorTiming.book
        timing.warning = .seconds(5)
        timing.warningFlashesLight = true
        return DoorCapabilities(sensing: .reported(by: "the \(kind.title) opener on /dev/ttyS0", kind: kind), timing: timing)
    }
}
