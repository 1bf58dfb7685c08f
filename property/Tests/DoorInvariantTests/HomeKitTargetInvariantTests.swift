import DoorCore
import PropertyBased
import Testing

/// HomeKit's TargetDoorState writes go through the door's view (`HAPDoorView.move(toTarget:)`),
/// which maps a write that repeats the target to nothing. That mapping must be redundant with
/// the gate (issue 30): whatever it skips, the gate would have answered without moving the door
/// now or later. Shown by two worlds run side by side over the same garage and steps, one whose
/// HomeKit writes go through the mapping and one whose writes all go to the gate: they press
/// alike, at the same moments, and neither breaks an invariant.
@Suite struct HomeKitTargetInvariantTests {
    /// The invariant tests' steps, with HomeKit's target writes mixed in.
    static let steps = zip(Gen.int(in: 0...3), Scenarios.step, Gen.int(in: 0...1)).map { kind, step, target -> Step in
        kind == 0 ? .homekitTarget(target) : step
    }.array(of: 1...80)

    private func worlds(_ garage: Garage, _ steps: [Step]) -> (mapped: World, gate: World) {
        let mapped = World(garage), gate = World(garage)
        gate.mapsTargetWrites = false
        for step in steps {
            mapped.perform(step)
            gate.perform(step)
        }
        mapped.run(for: .seconds(120))
        gate.run(for: .seconds(120))
        return (mapped, gate)
    }

    @Test func skippingARepeatedTargetChangesNoPress() async {
        await propertyCheck(count: 1_500, input: Scenarios.garage, Self.steps) { garage, steps in
            let (mapped, gate) = worlds(garage, steps)
            #expect(mapped.timedPresses == gate.timedPresses,
                    "\(garage)\n\(steps.map(\.description).joined(separator: "\n"))\nmapped: \(mapped.timedPresses)\ngate:   \(gate.timedPresses)")
            #expect(mapped.violations.isEmpty && gate.violations.isEmpty, "\(mapped.violations) \(gate.violations)")
        }
    }
}
