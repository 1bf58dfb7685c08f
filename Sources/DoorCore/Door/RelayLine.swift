/// An output line the daemon drives: a relay door's relay across the opener's push button
/// (`PulseDriver`), and any door's warning and light outputs (`DoorOutputs`); a door with a
/// serial opener has no relay. Implementations hold the line for their whole life at the
/// inactive level and leave it inactive when closed.
public protocol RelayLine: AnyObject, Sendable {
    /// What the line is, for the start-up log ("gpiochip0:17 (libgpiod v1)").
    var description: String { get }
    /// Energises (true) or releases (false) the relay.
    func setActive(_ active: Bool) throws(RelayError)
    /// Releases the relay and gives the line back.
    func close()
}

/// Why the relay line could not be claimed or driven; the message says what to do.
public struct RelayError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
