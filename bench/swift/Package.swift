// swift-tools-version:6.1
// In-process benchmarks of DoorCore's hot paths with ordo-one/benchmark (scripts/bench.sh runs
// them). A package of its own, so the main build and CI never resolve or build the harness; it
// takes DoorCore from the main package (../..), by its `DoorCore` library product.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (`main`, `garaged`, whatever the clone is
// called), and `.product(name:package:)` must name it.
let root = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("../..").standardizedFileURL

let package = Package(
    name: "garaged-bench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../.."),
        // The MallocInterposer trait alone: the default traits would also pull
        // swift-runtime-interposer, which is not among the packages available offline here.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "DoorCoreBenchmarks",
            dependencies: [
                .product(name: "DoorCore", package: root.lastPathComponent),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/DoorCoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
