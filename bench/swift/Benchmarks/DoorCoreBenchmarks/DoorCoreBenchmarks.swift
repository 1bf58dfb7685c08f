// DoorCore's hot paths measured in process with ordo-one/benchmark: what one request costs the
// daemon's logic before any syscall. scripts/bench.sh runs these and puts each benchmark's median
// wall-clock time per operation into its table and JSON.
//
// Each benchmark runs its operation 1000 times per measured iteration (scalingFactor .kilo), so
// the clock's own cost is spread thin; bench.sh divides by 1000. GARAGED_BENCH_QUICK=1 (set by
// `scripts/bench.sh --quick`) shortens each benchmark to a fraction of a second.

import Benchmark
import DoorCore
import Foundation

let benchmarks: @Sendable () -> Void = {
    let quick = ProcessInfo.processInfo.environment["GARAGED_BENCH_QUICK"] == "1"
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: quick ? 3 : 10,
        scalingFactor: .kilo,
        maxDuration: quick ? .milliseconds(300) : .seconds(2),
        maxIterations: quick ? 300 : 2000
    )

    let open = Array("12345O=1".utf8)
    let owner = RequestSource("local uid=0", channel: nil, isLocal: true)
    let now = Instant(nanoseconds: 1_000_000_000_000)

    // The codec alone: bytes to a Request (PIN, command letter, argument).
    Benchmark("CommandCodec.decode 12345O=1") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(CommandCodec.decode(open))
        }
    }

    // The controller deciding an open from the shell: a CLOSED door, the master PIN, travel 0,
    // pulse 50 ms as the latency benchmark runs the daemon. Each operation starts from the same
    // pristine controller (a copy of a struct: the copy-on-write of what the decision mutates is
    // part of the figure, as it is in the daemon).
    let table = try! PinTable(master: PIN("12345")!)
    let pristine = Controller(
        table: table,
        door: Door(timing: DoorTiming(pulse: .milliseconds(50), travel: .zero, autoClose: nil)),
        store: NullStore()
    )
    Benchmark("Controller.handle 12345O=1 (open, CLOSED door)") { benchmark in
        for _ in benchmark.scaledIterations {
            var c = pristine
            blackHole(c.judgeAndAccount(open, from: owner, at: now))
        }
    }

    // The PIN table file: the book's 1024-byte EEPROM image, 16 slots, 10 of them used.
    var full = try! PinTable(master: PIN("12345")!)
    for i in 0..<10 { _ = try! full.add(PIN("pin\(String(format: "%02d", i))")!) }
    let image = EEPROMLayout.encode(full)
    let filled = full
    Benchmark("EEPROMLayout.encode (16 slots, 10 used)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(EEPROMLayout.encode(filled))
        }
    }
    Benchmark("EEPROMLayout.decode (16 slots, 10 used)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! EEPROMLayout.decode(image))
        }
    }

    // The ATT server taking a Write Request of 12345O=1 to 6E400002's value handle: decode the
    // PDU, check the handle's permission, hand back the Write Response and the command bytes.
    let gatt = try! GarageGATT()
    let server = ATTServer(gatt: gatt)
    let writeRequest: [UInt8] = [0x12, UInt8(gatt.commandHandle & 0xFF), UInt8(gatt.commandHandle >> 8)] + open
    Benchmark("ATTServer.handle Write Request 12345O=1") { benchmark in
        for _ in benchmark.scaledIterations {
            var s = server
            blackHole(s.answer(writeRequest))
        }
    }
}

/// The controller saves a changed table before answering; deciding an open changes none.
final class NullStore: PinTableSaving, @unchecked Sendable {
    func save(_ table: PinTable) throws(StoreError) {}
}
