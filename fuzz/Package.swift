// swift-tools-version:6.0
// libFuzzer targets for DoorCore's parsers, kept out of the main package because a libFuzzer
// executable has no main() of its own and only links with -sanitize=fuzzer. DoorCore is the
// main package's own sources (a symlink), so nothing depends on the checkout's folder name;
// so are CCrypto and DoorSystem's LibCrypto, which the HomeKit cases use for real crypto.
// See fuzz/run.sh.
import PackageDescription

let package = Package(
    name: "garaged-fuzz",
    targets: [
        .target(name: "DoorCore"),
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "HAPLibCrypto", dependencies: ["DoorCore", "CCrypto"]),
        .executableTarget(name: "FuzzDoorCore", dependencies: ["DoorCore", "HAPLibCrypto"]),
    ]
)
