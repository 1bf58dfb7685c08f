import DoorCore
import LibCryptoOption
import SwiftCryptoOption

#if canImport(Glibc)
import Glibc
#endif

// The accessory's side of one HomeKit pair-setup (M1 to M6) and one pair-verify (M1 to M4), as
// DoorCore's `PairSetup` and `PairVerify` do it, over each crypto option of docs/decisions.md.
// Only the accessory's `handle` calls are timed (TLV8 included: it is part of the accessory's
// work), by the wall clock and by the thread's CPU time: the machines this runs on are shared,
// and CPU time holds when other jobs take this one's turns on the cores. The controller's
// messages are made once before. First it checks that each option completes both exchanges
// with an independent controller and that the two options' replies are byte-identical (the
// same B, the same K, the same signatures), so both compute the real thing.
//
// Usage: hap-crypto-bench [--runs N]   (20 by default; each run times both options in turn)

struct Option {
    let name: String
    let crypto: any HAPCrypto
}

let options = [
    Option(name: "A: libcrypto (CCrypto)", crypto: FixedRandom(LibCrypto())),
    Option(name: "B: swift-crypto 3.12.3 + BigInt 6.0.1", crypto: FixedRandom(SwiftCryptoBigInt())),
]

var runs = 20
if let i = CommandLine.arguments.firstIndex(of: "--runs") {
    guard i + 1 < CommandLine.arguments.count, let n = Int(CommandLine.arguments[i + 1]), n > 0 else {
        fail("--runs takes a positive number")
    }
    runs = n
}

// MARK: the accessory and the controller

let clock = ContinuousClock()
let now = Instant(nanoseconds: 1_000_000_000_000)
let setupCode = "031-45-154"
let controller = Controller(crypto: SwiftCryptoBigInt())
let seed = Array(LibCrypto().sha512(Array("garaged bench/hap-crypto: the accessory's key".utf8)).prefix(32))
let unpaired = HAPAccessoryState(id: "1A:2B:3C:4D:5E:6F", seed: seed, setupCode: setupCode, setupID: "BNCH")
let paired = HAPAccessoryState(id: unpaired.id, seed: seed, setupCode: setupCode, setupID: unpaired.setupID,
                               pairings: [controller.pairing])

/// The time one step took.
struct Sample {
    var wall: Duration
    var cpu: Duration

    static func of<T>(_ work: () -> T) -> (T, Sample) {
        let wall = clock.now, cpu = threadCPUTime()
        let result = work()
        return (result, Sample(wall: clock.now - wall, cpu: threadCPUTime() - cpu))
    }
}

/// One pair-setup by a fresh `PairSetup`: its three replies and the time each step took.
func pairSetup(_ crypto: any HAPCrypto, m3: [UInt8], m5: [UInt8])
    -> (replies: [[UInt8]], steps: [Sample], effect: PairSetup.Effect?) {
    var setup = PairSetup()
    var replies: [[UInt8]] = [], steps: [Sample] = [], effect: PairSetup.Effect?
    for body in [controller.setupM1, m3, m5] {
        let (answer, sample) = Sample.of { setup.step(body, connection: 1, accessory: unpaired, crypto: crypto, at: now) }
        steps.append(sample)
        replies.append(answer.reply)
        effect = answer.effect
    }
    return (replies, steps, effect)
}

/// One pair-verify by a fresh `PairVerify`, of the controller `paired` knows.
func pairVerify(_ crypto: any HAPCrypto, m3: [UInt8])
    -> (replies: [[UInt8]], steps: [Sample], verified: PairVerify.Verified?) {
    var verify = PairVerify()
    var replies: [[UInt8]] = [], steps: [Sample] = [], verified: PairVerify.Verified?
    for body in [controller.verifyM1, m3] {
        let (answer, sample) = Sample.of { verify.step(body, accessory: paired, crypto: crypto) }
        steps.append(sample)
        replies.append(answer.reply)
        verified = answer.verified
    }
    return (replies, steps, verified)
}

// MARK: the controller's messages, and the checks

// Every option's M2 is the same (checked below), so the controller answers option A's.
var probe = PairSetup()
let setupM2 = probe.step(controller.setupM1, connection: 1, accessory: unpaired, crypto: options[0].crypto, at: now).reply
let srp = controller.setupM3(m2: setupM2, setupCode: setupCode)
let setupM5 = controller.setupM5(srp)
var verifyProbe = PairVerify()
let verifyM2 = verifyProbe.step(controller.verifyM1, accessory: paired, crypto: options[0].crypto).reply
let (verifyM3, shared) = controller.verifyM3(m2: verifyM2, accessory: paired)

var reference: (setup: [[UInt8]], verify: [[UInt8]])?
for option in options {
    let setup = pairSetup(option.crypto, m3: srp.m3, m5: setupM5)
    controller.checkSetup(m4: setup.replies[1], m6: setup.replies[2], srp, accessory: unpaired)
    require(setup.effect == .paired(controller.pairing), "\(option.name): pair-setup pairs the controller")

    let verify = pairVerify(option.crypto, m3: verifyM3)
    guard var accessoryEnd = verify.verified?.cipher, verify.verified?.controller == controller.pairing.id else {
        fail("\(option.name): pair-verify does not verify the controller")
    }
    var controllerEnd = controller.sessionCipher(shared: shared)
    let ping = Array("ping".utf8), pong = Array("pong".utf8)
    require(controllerEnd.open(accessoryEnd.seal(pong)) == .plaintext(pong)
            && accessoryEnd.open(controllerEnd.seal(ping)) == .plaintext(ping),
            "\(option.name): the session pair-verify keyed carries frames both ways")

    if let reference {
        require(setup.replies == reference.setup, "\(option.name): pair-setup replies (B, the proof from K, M6) equal option A's")
        require(verify.replies == reference.verify, "\(option.name): pair-verify replies equal option A's")
    } else {
        reference = (setup.replies, verify.replies)
    }
}
print("checks passed: each option pairs and verifies an independent controller (SRP client on BigInt),")
print("  and both options' replies are byte-identical: same B, same K = SHA-512(S) (K begins \(hex(srp.sessionKey.prefix(8)))),")
print("  same Ed25519 signatures and sealed messages")

// MARK: timing

var setupTimes = [[[Sample]]](repeating: [], count: options.count)
var verifyTimes = [[[Sample]]](repeating: [], count: options.count)
print("load average before: \(loadAverage())")
for run in 0..<runs {
    // Both options take turns, the order reversed every other run, so noise falls on both alike.
    for o in (run % 2 == 0 ? Array(options.indices) : options.indices.reversed()) {
        setupTimes[o].append(pairSetup(options[o].crypto, m3: srp.m3, m5: setupM5).steps)
        verifyTimes[o].append(pairVerify(options[o].crypto, m3: verifyM3).steps)
    }
}
print("load average after:  \(loadAverage())")
print()
print("accessory side, ms, \(runs) runs of each: wall clock median / min, and CPU time median;")
print("pair-setup's steps as CPU time medians")
print("| option | pair-setup wall | CPU | M1→M2 (v, B) | M3→M4 (S, K, proofs) | M5→M6 | pair-verify wall | CPU |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for o in options.indices {
    let setup = setupTimes[o], verify = verifyTimes[o]
    let steps = (0..<3).map { i in ms(median(setup.map { $0[i].cpu })) }
    print("| \(options[o].name) | \(wall(setup)) | \(cpu(setup)) | \(steps[0]) | \(steps[1]) | \(steps[2]) "
          + "| \(wall(verify)) | \(cpu(verify)) |")
}

// MARK: formatting

/// Median and minimum wall-clock time of whole exchanges (each the sum of its steps).
func wall(_ runs: [[Sample]]) -> String {
    let totals = runs.map { $0.reduce(.zero) { $0 + $1.wall } }
    return "\(ms(median(totals))) / \(ms(totals.min()!))"
}

/// Median CPU time of whole exchanges.
func cpu(_ runs: [[Sample]]) -> String {
    ms(median(runs.map { $0.reduce(.zero) { $0 + $1.cpu } }))
}

func median(_ values: [Duration]) -> Duration {
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Milliseconds with two decimals.
func ms(_ d: Duration) -> String {
    let (seconds, attoseconds) = d.components
    let hundredths = seconds * 100_000 + (attoseconds + 5_000_000_000_000) / 10_000_000_000_000
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
}

func threadCPUTime() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

func loadAverage() -> String {
    guard let file = fopen("/proc/loadavg", "r") else { return "unknown" }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), file) != nil else { return "unknown" }
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}
