/// The table image the book's layout prescribes, built by hand (not with DoorCore's encoder, so
/// the test is an independent check of it): slot i at offset 6*i, flag 1 and five PIN bytes for a
/// used slot, six zero bytes for a free one, then 0xFF to the end of the 1024 bytes.
func expectedImage(_ slots: [String?]) -> [UInt8] {
    var image = [UInt8](repeating: 0xFF, count: 1024)
    for (i, slot) in slots.enumerated() {
        let base = 6 * i
        if let slot {
            let pin = Array(slot.utf8)
            precondition(pin.count == 5)
            image[base] = 1
            for k in 0..<5 { image[base + 1 + k] = pin[k] }
        } else {
            for k in 0..<6 { image[base + k] = 0 }
        }
    }
    return image
}

/// Slots for `expectedImage`: the master, then `used` at the given slots, free elsewhere.
func slots(capacity: Int = 16, master: String = GaragedTestCase.master, _ used: [Int: String] = [:]) -> [String?] {
    (0..<capacity).map { $0 == 0 ? master : used[$0] }
}
