import DoorCore
import DoorSystem
#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// Makes event records durable on a thread of its own, so the door loop (and through it the
/// relay) never waits on the disk: the loop enqueues, this thread appends and fdatasyncs each
/// record to its part of the history (what matters, or attempts). If the disk stalls, the
/// queue holds up to `maxQueued` records and then drops the newest, and says so in the log
/// once it moves again.
final class EventWriter: Service, @unchecked Sendable {
    static let maxQueued = 10_000

    private let files: [EventRecord.Importance: EventHistoryFile]
    private let log: Logger
    private let state = Mutex((queue: [EventRecord](), dropped: 0))
    private let worker = Worker("event-writer")

    init(kept: EventHistoryFile, attempts: EventHistoryFile, log: Logger) {
        files = [.kept: kept, .attempt: attempts]
        self.log = log
    }

    func start() { worker.start { [self] in run() } }

    /// Called from the door loop: never blocks on the disk.
    func enqueue(_ record: EventRecord) {
        let accepted = state.withLock { s -> Bool in
            guard s.queue.count < EventWriter.maxQueued else { s.dropped += 1; return false }
            s.queue.append(record)
            return true
        }
        if accepted { worker.wake.signal() }
    }

    /// Writes what is queued and stops the thread; waits at most `timeout`.
    func stop() -> Bool { worker.stop(within: .seconds(1)) }

    var name: String { worker.name }

    private func run() {
        var failing: Set<String> = []
        while true {
            var fds = [pollfd(fd: worker.wake.fd, events: Int16(POLLIN), revents: 0)]
            // Asked before the batch is taken: what was queued before `stop` is in this batch.
            let stop = worker.stopping
            let (batch, dropped) = state.withLock { s -> ([EventRecord], Int) in
                defer { s.queue.removeAll(); s.dropped = 0 }
                return (s.queue, s.dropped)
            }
            if dropped > 0 {
                log.warning("events-dropped", ["count": String(dropped), "why": "the event file could not keep up"])
            }
            for (importance, file) in files {
                let records = batch.filter { $0.importance == importance }
                guard !records.isEmpty else { continue }
                do {
                    try file.append(records)
                    if failing.remove(file.path) != nil { log.info("events-writing", ["file": file.path]) }
                } catch {
                    if failing.insert(file.path).inserted {
                        log.error("event-write-failed", ["error": error.description, "records": String(records.count)])
                    }
                }
            }
            if stop { break }
            if batch.isEmpty {
                waitFor(&fds, timeout: nil)
                worker.wake.drain()
            }
        }
        for file in files.values { file.close() }
    }
}
