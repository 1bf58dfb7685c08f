import DoorCore
import DoorSystem

extension Daemon {
    /// `opener = auto:DEVICE`: a search (`OpenerSearch`) that starts from the result kept beside
    /// the PIN table, when there is one, and keeps what it finds there. A damaged result is
    /// said once and searched again; one that cannot be written is said, and found again next start.
    func autoDrive(port: SerialPort, codes: SecPlus2Codes, door d: DoorSetup, name: String?, clock: any MonotonicClock) -> SerialOpenerDrive {
        let index = d.index
        let file = OpenerFoundFile(tablePath: settings.pins, door: DoorSetup.fileName(index, d.settings))
        let tag: [(String, String)] = name.map { [("door", $0)] } ?? []
        var kept: (kind: OpenerKind, how: String)?
        do throws(StoreError) {
            kept = try file.load()
        } catch {
            log.warning("opener-found-unreadable", tag + [("error", error.description), ("effect", "garaged searches the wire again and keeps what it finds")])
        }
        let timing1 = d.secPlus1Timing
        var timing = OpenerSearch.Timing()
        timing.probe1For = timing1.listenFor + timing1.silentAfter + .seconds(5)
        let device = port.path
        let search = OpenerSearch(device: device, kept: kept, timing: timing, at: clock.now()) { kind, now -> any OpenerSession in
            kind == .secPlus1 ? SecPlus1Session(device: device, door: index, timing: timing1, at: now)
                : SecPlus2Session(device: device, codes: codes, door: index, at: now)
        }
        let log = self.log
        return SerialOpenerDrive(port: port, session: search, clock: clock, log: log, door: index, name: name) { found in
            guard let kind = found.kind else { return }
            do throws(StoreError) {
                try file.save(kind, how: found.how)
                log.info("opener-found-kept", tag + [("file", file.path), ("protocol", kind.id)])
            } catch {
                log.warning("opener-found-not-kept", tag + [("file", file.path), ("error", error.description),
                                                            ("effect", "the next start searches again")])
            }
        }
    }
}
