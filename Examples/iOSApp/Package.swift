// swift-tools-version: 6.0
//
// Vigil's example iOS app: a UIKit app whose buttons make the problems Vigil reports (a hang,
// frozen frames, a slow request, a crash) and run a BLE card-terminal session on the simulated
// transport. It depends on the Vigil package in this repository by path.
//
// Build for the simulator:
//   xcodebuild build -scheme VigilExampleApp -destination 'generic/platform=iOS Simulator'
// README.md says how to run it in a simulator.

import PackageDescription

let package = Package(
    name: "VigilExampleApp",
    platforms: [.iOS(.v15), .macOS(.v13)],
    dependencies: [.package(name: "Vigil", path: "../..")],
    targets: [
        .executableTarget(
            name: "VigilExampleApp",
            dependencies: [
                .product(name: "Vigil", package: "Vigil"),
                .product(name: "VigilBLE", package: "Vigil"),
                .product(name: "VigilBLESimulation", package: "Vigil"),
            ],
            path: "Sources/VigilExampleApp"
        ),
    ],
    swiftLanguageModes: [.v6]
)
