// swift-tools-version:6.1
// Property-based tests of the door's invariants with x-sheep/swift-property-based (it shrinks a
// failing case to a short one). A package of its own, as bench/swift is: the library needs
// Swift 6.2, and the main package must still build with Debian's Swift 6.0.3. It takes DoorCore
// from the main package (..), by its `DoorCore` library product. scripts/test.sh runs it.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (`main`, `garaged`, whatever the clone is
// called), and `.product(name:package:)` must name it.
let root = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("..").standardizedFileURL

let package = Package(
    name: "garaged-properties",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
    ],
    targets: [
        .testTarget(
            name: "DoorInvariantTests",
            dependencies: [
                .product(name: "DoorCore", package: root.lastPathComponent),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/DoorInvariantTests"
        ),
    ]
)
