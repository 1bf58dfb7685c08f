import Testing

/// Plays one case as every invariant check does (the steps on a new world of the garage, then two
/// minutes more) and expects no invariant broken, naming the garage, the steps and what broke:
/// a property and the cases it once found are played the same way. The world is returned for
/// the case's own expectations.
@discardableResult
func replay(_ garage: Garage, _ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation) -> World {
    let world = World(garage)
    for step in steps { world.perform(step) }
    world.run(for: .seconds(120))
    #expect(world.violations.isEmpty,
            "\(garage)\n\(steps.map(\.description).joined(separator: "\n"))\n\(world.violations.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
    return world
}
