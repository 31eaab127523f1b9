// swift-tools-version: 6.0
//
// Vigil: performance and stability monitoring for Swift apps, a self-hosted server, and a
// reliable Bluetooth LE link. The layout follows docs/architecture.md: one folder per target
// under Sources/, one test target per module under Tests/.
//
// The SDK targets (VigilCore, CVigilRuntime, VigilRuntime, VigilStore, VigilTransport, Vigil,
// VigilLaunch, VigilBLE, and VigilReports and VigilSymbols, which Vigil links to read MetricKit
// payloads) depend only on Foundation, Dispatch, zlib and the platform's crypto (and on Linux
// libzstd, through VigilSymbols), never on a server-side C library.
//
// Build flags such as -fno-omit-frame-pointer are passed by the Makefile, not as unsafeFlags
// here, so that the package stays usable as a versioned dependency.

import PackageDescription

let linuxOnly = TargetDependencyCondition.when(platforms: [.linux])

let package = Package(
    name: "Vigil",
    // Only the platforms whose SDKs the SDK targets are type-checked against (iOS 17, macOS 14;
    // docs/architecture.md) and that the Apple CI workflow builds.
    platforms: [.macOS(.v13), .iOS(.v15)],
    products: [
        .library(name: "Vigil", targets: ["Vigil"]),
        .library(name: "VigilCore", targets: ["VigilCore"]),
        .library(name: "VigilLaunch", targets: ["VigilLaunch"]),
        .library(name: "VigilStore", targets: ["VigilStore"]),
        .library(name: "VigilTransport", targets: ["VigilTransport"]),
        .library(name: "VigilBLE", targets: ["VigilBLE"]),
        .library(name: "VigilBLESimulation", targets: ["VigilBLESimulation"]),
        .library(name: "VigilBLEHost", targets: ["VigilBLEHost"]),
        .library(name: "VigilSymbols", targets: ["VigilSymbols"]),
        .library(name: "VigilReports", targets: ["VigilReports"]),
        .library(name: "VigilServer", targets: ["VigilServer"]),
        .executable(name: "vigil", targets: ["VigilCLI"]),
        .executable(name: "vigil-sample", targets: ["VigilSample"]),
        .executable(name: "vigil-bench", targets: ["VigilBench"]),
    ],
    targets: [
        // MARK: System libraries (module map + pkg-config, nothing else)
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // zstd-compressed ELF debug sections (GCC 13, recent binutils); server-side, Linux only
        // (Apple platforms ship no libzstd; there such sections are reported as unsupported).
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd",
                       providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),

        // MARK: SDK
        .target(name: "VigilCore"),
        .target(name: "CVigilRuntime"),
        .target(name: "VigilRuntime", dependencies: ["VigilCore", "CVigilRuntime"]),
        .target(name: "VigilStore", dependencies: ["VigilCore", "CZlib"]),
        .target(name: "VigilTransport", dependencies: ["VigilCore", "VigilStore", "CZlib"]),
        // VigilReports reads MetricKit payloads with the server's own reader; it and VigilSymbols
        // link only Foundation and zlib (libzstd too on Linux), so the SDK links no server-side library.
        .target(name: "Vigil", dependencies: [
            "VigilCore", "CVigilRuntime", "VigilRuntime", "VigilStore", "VigilTransport", "VigilReports",
        ]),
        .target(name: "VigilLaunch", dependencies: ["VigilCore"]),
        .target(name: "VigilBLE", dependencies: [
            "VigilCore", "CZlib", .target(name: "CCrypto", condition: linuxOnly),
        ]),
        .target(name: "VigilBLESimulation", dependencies: ["VigilBLE", "VigilCore"]),
        // A BLE host for Linux (HCI over H4 or the HCI user channel, L2CAP, ATT, GATT client)
        // with a BLETransport on it; no Apple code.
        .target(name: "VigilBLEHost", dependencies: ["VigilBLE", "VigilCore"]),

        // MARK: Server and tools
        // Argument parsing and subcommand dispatch shared by the three executables.
        .target(name: "VigilCommandLine"),
        .target(name: "VigilSymbols", dependencies: ["CZlib", .target(name: "CZstd", condition: linuxOnly)]),
        .target(name: "VigilReports", dependencies: ["VigilCore", "VigilSymbols"]),
        .target(name: "VigilServer", dependencies: [
            "VigilCore", "VigilSymbols", "VigilReports", "VigilStore", "VigilTransport",
            "CSQLite", "CMicroHTTPD", "CLibPQ", "CZlib", "CCrypto",
        ]),
        .executableTarget(name: "VigilCLI", dependencies: [
            "VigilCore", "VigilSymbols", "VigilReports", "VigilServer", "VigilLaunch",
            "VigilBLE", "VigilBLESimulation", "VigilBLEHost", "Vigil", "VigilCommandLine",
        ], path: "Sources/vigil"),
        // The sample's memory probe with a recovering signal handler (sigsetjmp needs C).
        .target(name: "CVigilSampleProbe"),
        .executableTarget(name: "VigilSample", dependencies: [
            "Vigil", "VigilCore", "VigilRuntime", "VigilLaunch", "VigilStore", "VigilCommandLine", "CVigilSampleProbe",
        ], path: "Sources/vigil-sample"),
        .executableTarget(name: "VigilBench", dependencies: [
            "VigilCore", "VigilRuntime", "CVigilRuntime", "VigilStore", "VigilTransport", "Vigil",
            "VigilLaunch", "VigilSymbols", "VigilReports", "VigilServer", "VigilBLE",
            "VigilBLESimulation", "VigilCommandLine", "VigilTestSupport",
        ], path: "Benchmarks/VigilBench"),

        // MARK: Tests (one target per module; each module's issue adds its target here)
        .target(name: "VigilTestSupport", dependencies: ["VigilCore"], path: "Tests/VigilTestSupport"),
        .testTarget(name: "VigilCoreTests", dependencies: ["VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilCLITests", dependencies: ["VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilServerTests", dependencies: ["VigilServer", "VigilCore", "VigilStore", "VigilTransport", "VigilTestSupport"]),
        .testTarget(name: "VigilSymbolsTests", dependencies: ["VigilSymbols", "VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilReportsTests", dependencies: ["VigilReports", "VigilSymbols", "VigilCore", "VigilTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "VigilRuntimeTests", dependencies: ["VigilRuntime", "CVigilRuntime", "VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilTests", dependencies: ["Vigil", "VigilCore", "VigilTransport", "VigilReports", "VigilTestSupport"]),
        .testTarget(name: "VigilStoreTests", dependencies: ["VigilStore", "VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilTransportTests", dependencies: [
            "VigilTransport", "VigilStore", "VigilCore", "VigilTestSupport",
        ]),
        .testTarget(name: "VigilCrashTests", dependencies: [
            "Vigil", "VigilRuntime", "CVigilRuntime", "VigilCore", "VigilStore", "VigilTestSupport", "CZlib",
        ]),
        .testTarget(name: "VigilLaunchTests", dependencies: ["VigilLaunch", "VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilBLEHostTests", dependencies: [
            "VigilBLEHost", "VigilBLE", "VigilBLESimulation", "VigilCore", "VigilTestSupport",
        ], exclude: ["Peer"]),
        .testTarget(name: "VigilBLETests", dependencies: ["VigilBLE", "VigilBLESimulation", "VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilNetworkTests", dependencies: ["Vigil", "VigilCore", "VigilTransport", "VigilTestSupport"]),
        // The README's and docs' code blocks, compiled (with swiftc, against the built modules) or
        // run; StandIns/ holds stand-in UI modules and the app types the snippets refer to.
        .testTarget(name: "VigilDocsTests", dependencies: ["VigilCore", "VigilTestSupport"], exclude: ["StandIns"]),
    ],
    swiftLanguageModes: [.v6]
)
