import CMDNS
import DoorCore
#if canImport(Glibc)
import Glibc
#endif

/// HomeKit: whether avahi-daemon answers, without which iPhones cannot find the accessory.
extension DoctorChecks {
    func homekit(into report: inout DoctorReport) {
        guard settings.homekit else {
            report.add(.ok, "homekit", "off (no --homekit)")
            return
        }
        let port = settings.homekitPort == 0 ? "the port its log names" : "port \(settings.homekitPort)"
        var version = [CChar](repeating: 0, count: 64)
        let rc = cmdns_probe(&version, version.count)
        if rc == 0 {
            report.add(.ok, "homekit", "\(text(version)) answers: iPhones find the accessory (_hap._tcp on \(port))")
            return
        }
        let why = rc == Int32(CMDNS_ERR_NO_DAEMON) ? "avahi-daemon is not running" : "avahi-daemon cannot be reached (\(String(cString: cmdns_strerror(rc))))"
        report.add(.warn, "homekit", "\(why): iPhones will not find the accessory (HomeKit still serves on \(port), to a controller given the address); sudo apt install avahi-daemon, then sudo systemctl enable --now avahi-daemon")
    }
}
