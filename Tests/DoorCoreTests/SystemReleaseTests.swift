import XCTest
@testable import DoorCore

/// What `garaged doctor` says about the system: a bookworm Pi is told that the arm64 package
/// will not install there and what to do; a trixie Pi and a PC are only named.
final class SystemReleaseTests: XCTestCase {
    let bookworm = """
        PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
        NAME="Debian GNU/Linux"
        VERSION_ID="12"
        VERSION="12 (bookworm)"
        VERSION_CODENAME=bookworm
        ID=debian
        """
    let trixie = """
        PRETTY_NAME="Debian GNU/Linux 13 (trixie)"
        VERSION_ID="13"
        VERSION_CODENAME=trixie
        ID=debian
        """

    func testABookwormPiIsToldThePackageNeedsTrixie() {
        let pi = SystemRelease(osRelease: bookworm, machine: "aarch64")
        XCTAssertEqual(pi.name, "Debian GNU/Linux 12 (bookworm)")
        XCTAssertEqual(pi.major, 12)
        XCTAssertEqual(pi.codename, "bookworm")
        let (warn, text) = pi.advice
        XCTAssertTrue(warn)
        for fact in ["trixie", "libc6 2.38", "libgpiod3", "will not install on bookworm, Debian 12", "docs/raspberry-pi.md"] {
            XCTAssertTrue(text.contains(fact), "\(fact): \(text)")
        }
    }

    func testATrixiePiAndAPCAreOnlyNamed() {
        XCTAssertEqual(SystemRelease(osRelease: trixie, machine: "aarch64").advice.warn, false)
        XCTAssertTrue(SystemRelease(osRelease: trixie, machine: "aarch64").advice.text.hasPrefix("Debian GNU/Linux 13 (trixie), aarch64"))
        XCTAssertEqual(SystemRelease(osRelease: bookworm, machine: "x86_64").advice.warn, false, "the amd64 package is built on Debian 12")
        XCTAssertEqual(SystemRelease(osRelease: bookworm, machine: "x86_64").advice.text, "Debian GNU/Linux 12 (bookworm), x86_64")
    }

    func testA32BitSystemAndAnUnknownOneAreSaidSo() {
        let raspbian = SystemRelease(osRelease: "ID=raspbian\nID_LIKE=debian\nVERSION_ID=\"12\"\n", machine: "armv7l")
        XCTAssertTrue(raspbian.isDebian)
        XCTAssertTrue(raspbian.advice.warn)
        XCTAssertTrue(raspbian.advice.text.contains("64-bit"), raspbian.advice.text)
        let none = SystemRelease(osRelease: nil, machine: "aarch64")
        XCTAssertFalse(none.advice.warn)
        XCTAssertTrue(none.advice.text.hasPrefix("an unknown system (no os-release), aarch64"), none.advice.text)
    }
}
