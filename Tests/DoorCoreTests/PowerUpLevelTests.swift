import DoorCore
import XCTest

/// Which GPIOs keep a relay off through a Pi's boot: the doctor's advice rests on this table.
final class PowerUpLevelTests: XCTestCase {
    func testThePiMainChipPullsZeroToEightUpAndNineToTwentySevenDown() {
        for chip in ["pinctrl-bcm2835", "pinctrl-bcm2711"] {
            for gpio in 0...8 { XCTAssertEqual(PowerUpLevel.raspberryPi(chipLabel: chip, offset: gpio), .high, "\(chip) GPIO\(gpio)") }
            for gpio in 9...27 { XCTAssertEqual(PowerUpLevel.raspberryPi(chipLabel: chip, offset: gpio), .low, "\(chip) GPIO\(gpio)") }
            XCTAssertNil(PowerUpLevel.raspberryPi(chipLabel: chip, offset: 28))
        }
        XCTAssertNil(PowerUpLevel.raspberryPi(chipLabel: "pinctrl-rp1", offset: 17), "a Pi 5 is not guessed")
        XCTAssertNil(PowerUpLevel.raspberryPi(chipLabel: "gpio-sim.0-node0", offset: 17))
    }

    func testOnlyAnOutputThatIsOnAtRestGetsAdvice() {
        XCTAssertNil(PowerUpLevel.advice(.low, gpio: 17, activeLow: false, role: "relay"))
        XCTAssertNil(PowerUpLevel.advice(.high, gpio: 4, activeLow: true, role: "relay"))
        let high = PowerUpLevel.advice(.high, gpio: 4, activeLow: false, role: "relay") ?? ""
        XCTAssertTrue(high.contains("GPIO4 is pulled high") && high.contains("GPIO17"), high)
        let low = PowerUpLevel.advice(.low, gpio: 17, activeLow: true, role: "relay") ?? ""
        XCTAssertTrue(low.contains("pull-up to 3.3 V"), low)
    }
}
