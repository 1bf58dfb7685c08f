/// How long things take at this particular garage; all settable because openers differ.
public struct DoorTiming: Equatable, Sendable {
    /// How long the relay closes the button contacts (the book's 300 ms).
    public var pulse: Duration
    /// How long the door takes to open or close after a press.
    public var travel: Duration
    /// How long the door stays open before it is closed again; nil turns auto-close off.
    public var autoClose: Duration?

    public static let pulseRange: ClosedRange<Int> = 50...5000      // milliseconds
    public static let travelRange: ClosedRange<Int> = 0...300       // seconds
    public static let autoCloseRange: ClosedRange<Int> = 0...86_400 // seconds; 0 = off

    public static let book = DoorTiming(pulse: .milliseconds(300), travel: .seconds(12),
                                        autoClose: .seconds(30))

    public init(pulse: Duration, travel: Duration, autoClose: Duration?) {
        self.pulse = pulse
        self.travel = travel
        self.autoClose = autoClose
    }

    /// How long the door counts as moving after a press: never shorter than the press itself,
    /// so two presses can never overlap even with a travel time of 0.
    public var moving: Duration { max(travel, pulse) }
}
