import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
#endif

/// The files and the socket: the table valid and private, the history writable, the socket's
/// directory and the group that may use it.
extension DoctorChecks {
    func table(into report: inout DoctorReport) {
        let path = settings.pins
        var st = stat()
        guard lstat(path, &st) == 0 else {
            let e = errno
            report.add(.fail, "table", e == ENOENT
                ? "\(path) does not exist; create it (it asks for the master PIN): garage-pins init --pins \(path)"
                : "\(path): \(DoctorChecks.errnoText(e))")
            return
        }
        let table: PinTable
        do {
            table = try PinTableFile(path: path).load()
        } catch {
            report.add(.fail, "table", error.description)
            return
        }
        report.add(.ok, "table", "\(path): \(table.entries.count + 1) of \(table.capacity) slots used, the master PIN set")
        let mode = st.st_mode & 0o777
        if mode & 0o077 != 0 {
            report.add(.fail, "table", "\(path) has mode \(String(mode, radix: 8)): other users can read the PINs; sudo chmod 600 \(path)")
        }
        if access(path, R_OK | W_OK) != 0 {
            report.add(.fail, "table", "this user (uid \(geteuid())) cannot read and write \(path) (owner uid \(st.st_uid)); run the doctor as the user garaged runs as, or fix the owner")
        }
        let dir = AtomicFile.directory(of: path)
        if access(dir, W_OK) != 0 {
            report.add(.fail, "table", "\(dir) is not writable by this user: a PIN change is saved by writing a new file there and renaming it")
        }
        if let pid = runningDaemon { report.add(.ok, "table", "in use by a running garaged (pid \(pid))") }
    }

    func events(into report: inout DoctorReport) {
        for path in settings.eventFiles {
            do { try AtomicFile.requireRegularOrMissing(path) } catch {
                report.add(.fail, "events", "\(error.description); garaged would keep no history")
                return
            }
        }
        let dir = AtomicFile.directory(of: settings.eventsPath)
        if access(dir, W_OK) != 0 {
            report.add(.fail, "events", "\(dir) is not writable by this user: the history (\(settings.eventsPath)) could not be kept")
        } else {
            report.add(.ok, "events", settings.eventsPath)
        }
    }

    /// Files holding secrets (the MQTT password, Bluetooth keys, HomeKit's seed) readable by
    /// other users; the table has its own check above.
    func secrets(into report: inout DoctorReport) {
        for (what, path) in settings.secretFiles where path != settings.pins {
            if let problem = Settings.exposure(of: path) { report.add(.fail, "secrets", "\(what): \(problem)") }
        }
    }

    func socket(into report: inout DoctorReport) {
        let path = settings.socket, dir = AtomicFile.directory(of: path)
        var st = stat()
        if stat(dir, &st) != 0 {
            if dir == "/run/garaged" {
                report.add(.ok, "socket", "\(dir) does not exist yet; the service's RuntimeDirectory=garaged creates it (by hand: sudo mkdir -m 755 \(dir))")
            } else {
                report.add(.fail, "socket", "\(dir) does not exist; create it (mkdir -p \(dir)) or choose another --socket")
            }
        } else if access(dir, W_OK) != 0 {
            report.add(.fail, "socket", "\(dir) is not writable by this user, so garaged cannot create \(path)")
        } else if let fd = try? LocalSocket.connect(path: path, type: Int32(SOCK_SEQPACKET.rawValue)) {
            close(fd)
            report.add(.ok, "socket", "\(path): a garaged answers on it")
        } else {
            report.add(.ok, "socket", "\(path) can be created")
        }
        guard let group = settings.socketGroup else {
            report.add(.warn, "socket", "no group \(Settings.defaultSocketGroup): only root and garaged's own user can use garage-pins; \(LocalSocketGroup.missingAdvice(user: "USER", exists: false))")
            return
        }
        let members = groupMembers(group.gid)
        if members.isEmpty {
            report.add(.warn, "socket", "group \(group.name) may use the socket but has no members; add the owner: sudo usermod -aG \(group.name) USER (then log in again)")
        } else {
            report.add(.ok, "socket", "group \(group.name) may use the socket: \(members.joined(separator: ", "))")
        }
    }

    private func groupMembers(_ gid: gid_t) -> [String] {
        guard let g = getgrgid(gid), var p = g.pointee.gr_mem else { return [] }
        var names: [String] = []
        while let name = p.pointee {
            names.append(String(cString: name))
            p += 1
        }
        return names
    }
}
