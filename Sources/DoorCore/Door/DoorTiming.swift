/// How long things take at this particular garage; all settable because openers differ.
public struct DoorTiming: Equatable, Sendable {
    /// How long the relay closes the button contacts (the book's 300 ms).
    public var pulse: Duration
    /// How long the door takes to open or close after a press. With sensors it is also the
    /// bound: a door that has not reached the end it was pressed toward by then is a fault.
    public var travel: Duration
    /// How long the door stays open before it is closed again; nil turns auto-close off.
    public var autoClose: Duration?
    /// How long the warning output (light or buzzer) runs before a close press; nil when no
    /// warning output is wired. It stays on during the closing travel too.
    public var warning: Duration?
    /// True when the warning is the opener's own light flashing (a door with an opener and no
    /// warn output wired): its light is then limited per channel as the warning is
    /// (`RequestRates.lights`), so nobody flashes the warning at will.
    public var warningFlashesLight = false
    /// After how long open the door is reported as left open (and again each time as long
    /// passes); nil: never.
    public var leftOpen: Duration?
    /// How long the light stays on after the door starts to move; nil when no light is wired.
    public var light: Duration?
    /// How long an opener's motion sensor reads "motion" after it last saw some (`motion-s`).
    public var motion: Duration = .seconds(60)

    public static let pulseRange: ClosedRange<Int> = 50...5000      // milliseconds
    public static let travelRange: ClosedRange<Int> = 0...300       // seconds
    public static let autoCloseRange: ClosedRange<Int> = 0...86_400 // seconds; 0 = off
    /// The U.S. rule for openers that close unattended (16 CFR 1211.14, from UL 325): at least
    /// 5 s of audible and visual warning before the door moves.
    public static let warningMinimum: Duration = .seconds(5)

    public static let book = DoorTiming(pulse: .milliseconds(300), travel: .seconds(12), autoClose: .seconds(30))

    public init(pulse: Duration, travel: Duration, autoClose: Duration?, warning: Duration? = nil,
                leftOpen: Duration? = nil, light: Duration? = nil) {
        self.pulse = pulse
        self.travel = travel
        self.autoClose = autoClose
        self.warning = warning
        self.leftOpen = leftOpen
        self.light = light
    }

    /// How long the door counts as moving after a press: never shorter than the press itself,
    /// so two presses can never overlap even with a travel time of 0.
    public var moving: Duration { max(travel, pulse) }
}
