import DoorCore

/// One of the door's limit switches as the daemon reads it: a descriptor the loop polls, the
/// level now, and the edges that arrived, each with when it happened (CLOCK_MONOTONIC). The
/// door debounces them.
protocol SwitchInput: AnyObject {
    var which: DoorSwitch { get }
    /// What it is, for the log ("gpiochip0:27 (libgpiod v1)", "sim:/tmp/closed").
    var description: String { get }
    /// Polls readable when edges wait.
    var fd: Int32 { get }
    /// The level now (true = active: the door is at this switch's end).
    func level() throws(RelayError) -> Bool
    /// The edges that arrived, oldest first; never blocks.
    func edges() -> [(active: Bool, at: Instant)]
    func close()
}

extension RelaySpec {
    /// The switch this spec names: a real input line through libgpiod, or `sim:FILE`.
    func openSwitch(_ which: DoorSwitch, activeLow: Bool, clock: any MonotonicClock) throws(RelayError) -> any SwitchInput {
        switch self {
        case .simulated(let path): return try SimulatedSwitch(which, path: path, activeLow: activeLow, clock: clock)
        case .gpio(let chip, let line): return try GpiodSwitch(which, chip: chip, line: line, activeLow: activeLow)
        }
    }
}
