// swift-tools-version: 6.0
//
// Fuzz targets for Vigil's parsers of outside input (`make fuzz`, see scripts/fuzz). Every
// directory under Sources/ is one libFuzzer executable exporting `LLVMFuzzerTestOneInput`;
// scripts/fuzz builds them with `-sanitize=fuzzer,address -parse-as-library` and seeds each
// from Corpus/<target>/. Targets are discovered from the directory listing, so adding one is
// adding a folder; code shared by several targets lives in library targets under Support/.

import Foundation
import PackageDescription

let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources")
let names = ((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? [])
    .filter { !$0.hasPrefix(".") }
    .sorted()

/// The library products of the root package each target needs, by target-name prefix.
func dependencies(of target: String) -> [Target.Dependency] {
    if target.hasPrefix("FuzzReport") { return [.product(name: "VigilReports", package: "Vigil"), "ReportFuzzing"] }
    if target.hasPrefix("FuzzSym") { return [.product(name: "VigilSymbols", package: "Vigil")] }
    return [.product(name: "VigilCore", package: "Vigil")]
}

let package = Package(
    name: "VigilFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Vigil", path: "..")],
    targets: names.map { .executableTarget(name: $0, dependencies: dependencies(of: $0), path: "Sources/\($0)") } + [
        .target(name: "ReportFuzzing", dependencies: [.product(name: "VigilReports", package: "Vigil")], path: "Support/ReportFuzzing"),
    ],
    swiftLanguageModes: [.v6]
)
