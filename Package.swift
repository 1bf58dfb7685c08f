// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "garaged",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "garaged", targets: ["garaged"]),
        .executable(name: "garage-pins", targets: ["garage-pins"]),
        // The pure logic, for the benchmarks in bench/swift (a package of their own).
        .library(name: "DoorCore", targets: ["DoorCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    // The system libraries' module maps (header and link flags only, no code of ours) are in
    // Sources/C, each named by its `path:`; the C we write (CGpio, CBluetooth...) has its own folder.
    targets: [
        // Pure logic: codec, PIN table, door state machine, throttle, ATT server. No hardware,
        // no sockets, no files, no clocks: what it needs of them comes in through protocols.
        .target(name: "DoorCore"),
        // DoorCore's adapters to the system: crash-safe files (the table, its lock, labels, the
        // history, the closing interval), the clocks, and libcrypto for HomeKit.
        .target(name: "DoorSystem", dependencies: ["DoorCore", "CCrypto"]),
        // libgpiod headers and link flags; PKG_CONFIG_PATH picks v1 or v2.
        .systemLibrary(
            name: "CGpiod",
            path: "Sources/C/CGpiod",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // A tiny version-neutral C API over libgpiod v1 and v2.
        .target(name: "CGpio", dependencies: ["CGpiod"]),
        // BlueZ's libbluetooth headers and link flags.
        .systemLibrary(
            name: "CBlueZ",
            path: "Sources/C/CBlueZ",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        // A tiny C layer over BlueZ sockets: the ATT channel, HCI advertising, adapter state.
        .target(name: "CBluetooth", dependencies: ["CBlueZ"]),
        // Linux calls Swift's Glibc module hides behind _GNU_SOURCE (ppoll, accept4, eventfd).
        .target(name: "CLinux"),
        // libmosquitto (the reference MQTT client) headers and link flags.
        .systemLibrary(
            name: "CMosquitto",
            path: "Sources/C/CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // libsystemd's sd_notify: readiness, status and the watchdog for a Type=notify unit.
        .systemLibrary(
            name: "CSystemd",
            path: "Sources/C/CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // libqrencode headers and link flags: garage-pins draws the HomeKit setup code as a QR code.
        .systemLibrary(
            name: "CQRencode",
            path: "Sources/C/CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // OpenSSL's libcrypto, one call per primitive HomeKit uses (hashes, HKDF, ChaCha20-Poly1305,
        // Ed25519, X25519, SRP's big-number arithmetic), on plain byte buffers.
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        // libmosquitto for a client driven from garaged's own poll loop: callbacks become events.
        .target(name: "CMQTT", dependencies: ["CMosquitto"]),
        // libavahi-client (avahi-daemon over D-Bus) headers, in /usr/include. Not pkgConfig:
        // SwiftPM refuses its -D_REENTRANT with a warning on every build, so CMDNS links it.
        .systemLibrary(
            name: "CAvahi",
            path: "Sources/C/CAvahi",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        // One DNS-SD service (HomeKit's _hap._tcp) through avahi, on the caller's own thread.
        .target(name: "CMDNS", dependencies: ["CAvahi"],
                linkerSettings: [.linkedLibrary("avahi-client"), .linkedLibrary("avahi-common")]),
        // garaged itself, all but its entry point: the wiring, the loop, the config, the doctor,
        // the command line. A library so the tests (GaragedTests) can run its parts in process.
        .target(
            name: "GaragedKit",
            dependencies: [
                "DoorCore", "DoorSystem", "CGpio", "CLinux", "CBluetooth", "CMQTT", "CMDNS", "CSystemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/garaged"
        ),
        // The garaged binary: GaragedKit's command line, nothing else.
        .executableTarget(name: "garaged", dependencies: ["GaragedKit"], path: "Sources/garaged-main"),
        .executableTarget(
            name: "garage-pins",
            dependencies: [
                "DoorCore", "DoorSystem", "CLinux", "CQRencode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "DoorCoreTests", dependencies: ["DoorCore", "DoorSystem"]),
        // garaged's parts in process: the config's parsing and refusals, doctor's checks, the door loop.
        .testTarget(name: "GaragedTests", dependencies: ["GaragedKit", "DoorCore", "DoorSystem", "CLinux"]),
        .testTarget(name: "IntegrationTests", dependencies: ["DoorCore", "DoorSystem"]),
    ]
)
