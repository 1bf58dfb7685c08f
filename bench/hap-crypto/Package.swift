// swift-tools-version:6.0
// The measurement behind docs/decisions.md's choice of crypto library for HomeKit: the
// accessory's side of one pair-setup and one pair-verify, run by DoorCore's own `PairSetup` and
// `PairVerify` over each option's `HAPCrypto`. A package of its own, so that the main build
// never resolves swift-crypto or BigInt. From the repository's root:
//     swift run -c release --package-path bench/hap-crypto hap-crypto-bench [--runs N]
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (`main`, `garaged`, whatever the clone is
// called), and `.product(name:package:)` must name it.
let root = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("../..").standardizedFileURL
let doorCore = Target.Dependency.product(name: "DoorCore", package: root.lastPathComponent)

let package = Package(
    name: "hap-crypto-bench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/attaswift/BigInt", exact: "6.0.1"),
    ],
    targets: [
        // Option A, what garaged ships: Sources/CCrypto and DoorSystem's LibCrypto.swift, taken
        // through symlinks (not copies), so this measures the very code garaged runs. The C
        // target keeps the module name CCrypto (its module.modulemap) under another target
        // name, as the main package's CCrypto target already has that one.
        .target(name: "LibCryptoC", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "LibCryptoOption", dependencies: ["LibCryptoC", doorCore]),
        // Option B: swift-crypto for the primitives, attaswift/BigInt for SRP's arithmetic.
        .target(name: "SwiftCryptoOption", dependencies: [
            doorCore,
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "BigInt", package: "BigInt"),
        ]),
        // The controller's SRP arithmetic is BigInt's, apart from DoorCore's SRPServer.
        .executableTarget(name: "hap-crypto-bench", dependencies: [
            doorCore, "LibCryptoOption", "SwiftCryptoOption",
            .product(name: "BigInt", package: "BigInt"),
        ]),
    ]
)
