// swift-tools-version: 6.0
//
// libFuzzer targets for Vigil's parsers of outside input, run by `make fuzz` (scripts/fuzz),
// which builds this package with -sanitize=fuzzer,address. Each target is one executable
// under Sources/ (scripts/fuzz runs every one); its seed inputs live in Corpus/<target>/. Shared
// C declarations live in Driver/ and shared Swift helpers in Support/, outside Sources/, so that
// they are not taken for targets. docs/fuzzing.md lists the targets and what each one asserts.

import PackageDescription

let package = Package(
    name: "VigilFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Vigil", path: "..")],
    targets: [
        // The declaration of libFuzzer's driver, which each target's entry point calls.
        .target(name: "CFuzzDriver", path: "Driver"),
        // Helpers the targets share: an input cursor, an invariant check, a value differ.
        .target(name: "FuzzSupport", path: "Support/FuzzSupport"),
        // Segment files as recovery reads them (VigilStore).
        .executableTarget(name: "FuzzSegmentRecovery", dependencies: ["CFuzzDriver", 
            .product(name: "VigilStore", package: "Vigil"), .product(name: "VigilCore", package: "Vigil"),
        ]),
        // Answers to POST /api/v1/events (VigilTransport).
        .executableTarget(name: "FuzzIngestResponse", dependencies: ["CFuzzDriver", .product(name: "VigilTransport", package: "Vigil")]),
        // Remote configuration documents (VigilCore's RemoteConfig, as the SDK and the server read them).
        .executableTarget(name: "FuzzRemoteConfig", dependencies: ["CFuzzDriver", .product(name: "VigilCore", package: "Vigil")]),
        // gzip bodies (VigilTransport's bounded inflate).
        .executableTarget(name: "FuzzGzip", dependencies: ["CFuzzDriver", .product(name: "VigilTransport", package: "Vigil")]),
        // Raw crash reports as the next launch reads them (VigilRuntime, inside the Vigil product).
        .executableTarget(name: "FuzzRawCrashReport", dependencies: ["CFuzzDriver", .product(name: "Vigil", package: "Vigil")]),
        // OTLP/JSON traces requests as the server's /v1/traces imports them (VigilCore's OTLP codec).
        .executableTarget(name: "FuzzOTLPTraces", dependencies: ["CFuzzDriver", .product(name: "VigilCore", package: "Vigil")]),
        // Request URLs (templating) and traceparent headers (VigilCore's network logic).
        .executableTarget(name: "FuzzRequestURL", dependencies: ["CFuzzDriver", .product(name: "VigilCore", package: "Vigil")]),
        // Ingest bodies as POST /api/v1/events reads them (VigilServer's event batch decoder).
        .executableTarget(name: "FuzzEventBatch", dependencies: ["CFuzzDriver",
            .product(name: "VigilServer", package: "Vigil"), .product(name: "VigilCore", package: "Vigil"),
        ]),
        // The /proc parsers and the process start time (VigilCore's ProcFS).
        .executableTarget(name: "FuzzProcFS", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilCore", package: "Vigil")]),
        // RFC 3339 timestamps (VigilCore's Timestamp).
        .executableTarget(name: "FuzzTimestamp", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilCore", package: "Vigil")]),
        // Hex addresses (VigilCore's Address).
        .executableTarget(name: "FuzzAddress", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilCore", package: "Vigil")]),
        // Event batches through EventJSON, the sanitizer and both encoders, against the server's decoder
        // (VigilCore, VigilStore's EventJSONWriter, VigilServer's EventBatchDecoder).
        .executableTarget(name: "FuzzEventRoundTrip", dependencies: ["CFuzzDriver", "FuzzSupport",
            .product(name: "VigilCore", package: "Vigil"), .product(name: "VigilStore", package: "Vigil"),
            .product(name: "VigilServer", package: "Vigil"),
        ]),
        // gzip request bodies as the server inflates them while they arrive (VigilServer's GzipInflater).
        .executableTarget(name: "FuzzGzipInflater", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilServer", package: "Vigil")]),
        // Launch graph files (VigilLaunch's LaunchGraphFile), simulated.
        .executableTarget(name: "FuzzLaunchGraphFile", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilLaunch", package: "Vigil")]),
        // Events files as `vigil launch report` reads them (VigilLaunch's LaunchTrace).
        .executableTarget(name: "FuzzLaunchTrace", dependencies: ["CFuzzDriver", "FuzzSupport",
            .product(name: "VigilLaunch", package: "Vigil"), .product(name: "VigilCore", package: "Vigil"),
        ]),
        // BLE notification streams of 0xAA55 frames (VigilBLE's FrameReassembler).
        .executableTarget(name: "FuzzFrameReassembler", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilBLE", package: "Vigil")]),
        // BLE notification streams of TLV packets (VigilBLE's TLVPacketReassembler).
        .executableTarget(name: "FuzzTLVPacketReassembler", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilBLE", package: "Vigil")]),
        // H4 streams, HCI events, L2CAP and ATT responses as the BLE host reads them (VigilBLEHost).
        .executableTarget(name: "FuzzHostDecoders", dependencies: ["CFuzzDriver", "FuzzSupport",
            .product(name: "VigilBLEHost", package: "Vigil"), .product(name: "VigilBLE", package: "Vigil"),
            .product(name: "VigilBLESimulation", package: "Vigil"),
        ]),
        // Reliable-transfer packets (VigilBLE's TransferPacket).
        .executableTarget(name: "FuzzTransferPacket", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilBLE", package: "Vigil")]),
        // The reliable-transfer receiver fed a central's packets, good and hostile (VigilBLE's TransferReceiver).
        .executableTarget(name: "FuzzTransferReceiver", dependencies: ["CFuzzDriver", "FuzzSupport",
            .product(name: "VigilBLE", package: "Vigil"), .product(name: "VigilCore", package: "Vigil"),
        ]),
        // Authenticated 0xAA55 commands as a terminal checks them (VigilBLE's AuthenticatedFrame and TerminalCommandGuard).
        .executableTarget(name: "FuzzAuthenticatedFrame", dependencies: ["CFuzzDriver", "FuzzSupport", .product(name: "VigilBLE", package: "Vigil")]),
        // Crash reports in every format, then classification, fingerprints and every writer (VigilReports).
        .target(name: "ReportFuzzing", dependencies: [.product(name: "VigilReports", package: "Vigil")], path: "Support/ReportFuzzing"),
        .executableTarget(name: "FuzzReportIPS", dependencies: [.product(name: "VigilReports", package: "Vigil"), "ReportFuzzing"]),
        .executableTarget(name: "FuzzReportAppleText", dependencies: [.product(name: "VigilReports", package: "Vigil"), "ReportFuzzing"]),
        .executableTarget(name: "FuzzReportMetricKit", dependencies: [.product(name: "VigilReports", package: "Vigil"), "ReportFuzzing"]),
        .executableTarget(name: "FuzzReportVigilEvent", dependencies: [.product(name: "VigilReports", package: "Vigil"), "ReportFuzzing"]),
        .executableTarget(name: "FuzzReportKSCrash", dependencies: [.product(name: "VigilReports", package: "Vigil"), "ReportFuzzing"]),
        // Symbol uploads: zip, tar, tar.gz and bare object files (VigilServer's archive readers).
        .executableTarget(name: "FuzzSymbolArchive", dependencies: ["CFuzzDriver", .product(name: "VigilServer", package: "Vigil")]),
        // Object files: thin/fat Mach-O and dSYMs, then ELF, each through SymCache building (VigilSymbols).
        .executableTarget(name: "FuzzObjectMachO", dependencies: ["CFuzzDriver", .product(name: "VigilSymbols", package: "Vigil")]),
        .executableTarget(name: "FuzzObjectELF", dependencies: ["CFuzzDriver", .product(name: "VigilSymbols", package: "Vigil")]),
        // zstd-compressed ELF debug sections (VigilSymbols through libzstd), wrapped in a minimal ELF.
        .executableTarget(name: "FuzzZstdSection", dependencies: ["CFuzzDriver", .product(name: "VigilSymbols", package: "Vigil")]),
        // DWARF sections (units, abbreviations, forms, line programs, range lists) in a minimal ELF.
        .executableTarget(name: "FuzzDWARF", dependencies: ["CFuzzDriver", .product(name: "VigilSymbols", package: "Vigil")]),
        // SymCache files as the server maps them.
        .executableTarget(name: "FuzzSymCache", dependencies: ["CFuzzDriver", .product(name: "VigilSymbols", package: "Vigil")]),
        // Demangling and name simplification of arbitrary text.
        .executableTarget(name: "FuzzDemangler", dependencies: ["CFuzzDriver", .product(name: "VigilSymbols", package: "Vigil")]),
    ],
    swiftLanguageModes: [.v6]
)
