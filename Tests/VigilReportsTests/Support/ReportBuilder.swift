import Foundation
@testable import VigilReports

/// Hand-written fixture files in Apple's formats, under `Tests/VigilReportsTests/Fixtures/`.
enum Fixture {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func report(_ name: String) throws -> CrashReport {
        let reports = try ReportReader.read(try data(name))
        guard let first = reports.first else { throw ReportError.noReports(name) }
        return first
    }
}

/// Builds small reports in code for rule tests: an app image and the usual system images, and
/// threads given as lists of `(image, symbol)` frames.
struct ReportBuilder {
    /// A frame: an image name (an index into the builder's images) and an optional symbol.
    struct Spec {
        var image: String
        var symbol: String?

        static func app(_ symbol: String?) -> Spec { Spec(image: "Shop", symbol: symbol) }
        static func sys(_ image: String, _ symbol: String) -> Spec { Spec(image: image, symbol: symbol) }
    }

    var report: CrashReport
    private var nextOffset: [String: UInt64] = [:]

    static let systemImages = ["libsystem_kernel.dylib", "libsystem_pthread.dylib", "libdispatch.dylib", "Foundation", "UIKitCore",
                               "libobjc.A.dylib", "libswiftCore.dylib", "CoreFoundation", "libc++abi.dylib", "libsystem_c.dylib",
                               "libsqlite3.dylib", "CFNetwork", "libicucore.A.dylib", "libc++.1.dylib", "dyld"]

    init(kind: ReportKind = .crash, format: ReportFormat = .ips, appBase: UInt64 = 0x1_0200_0000) {
        report = CrashReport(format: format, kind: kind)
        report.process = ProcessDetails(name: "Shop", pid: 321, path: "/private/var/containers/Bundle/Application/0C1D2E3F-4A5B-4C6D-8E7F-9A0B1C2D3E4F/Shop.app/Shop")
        report.app = AppDetails(bundleID: "com.example.shop", version: "3.2.0", build: "412")
        report.system = SystemDetails(osName: "iPhone OS", osVersion: "17.5.1", osBuild: "21F90", deviceModel: "iPhone14,2",
                                      cpuType: "ARM-64", architecture: "arm64")
        report.images.append(BinaryImage(name: "Shop", uuid: "82D13D98-219E-3040-B62A-07A297007A7C", arch: "arm64", base: appBase,
                                         size: 0x40_0000, path: report.process.path))
        var base: UInt64 = 0x1_8000_0000
        for (index, name) in Self.systemImages.enumerated() {
            let path = name.hasSuffix(".dylib") ? "/usr/lib/system/\(name)" : "/System/Library/Frameworks/\(name).framework/\(name)"
            report.images.append(BinaryImage(name: name, uuid: String(format: "%08X-0000-3000-8000-%012X", index + 1, index + 1),
                                             arch: "arm64e", base: base, size: 0x100_0000, path: name == "dyld" ? "/usr/lib/dyld" : path))
            base += 0x200_0000
        }
    }

    /// Adds a thread; frames are given innermost first.
    @discardableResult
    mutating func thread(crashed: Bool = false, queue: String? = nil, name: String? = nil, _ frames: [Spec],
                         registers: [Register] = []) -> Int {
        var record = ThreadRecord(number: report.threads.count, name: name, queue: queue, crashed: crashed)
        for spec in frames {
            guard let index = report.images.firstIndex(where: { $0.name == spec.image }) else {
                preconditionFailure("unknown image \(spec.image)")
            }
            // Offsets depend on the symbol so that the same function gets the same offset.
            let offset = spec.symbol.map { symbol in
                symbol.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 } % 0x3F_0000 & ~3
            } ?? nextOffset[spec.image, default: 0x1000]
            nextOffset[spec.image, default: 0x1000] += 0x40
            record.frames.append(StackFrame(imageIndex: index, imageOffset: offset, symbol: spec.symbol,
                                            symbolOffset: spec.symbol == nil ? nil : 12))
        }
        record.registers = registers
        report.threads.append(record)
        if crashed { report.triggeredThreadIndex = report.threads.count - 1 }
        return report.threads.count - 1
    }

    mutating func exception(_ type: String?, _ signal: String?, subtype: String? = nil, codes: [UInt64] = [], message: String? = nil,
                            faultAddress: UInt64? = nil) {
        var exception = ExceptionDetails(type: type, signal: signal, codes: codes, subtype: subtype, message: message)
        exception.faultAddress = faultAddress ?? ExceptionCodes.faultAddress(exception)
        report.exception = exception
    }

    mutating func termination(_ namespace: String?, _ code: UInt64?, _ details: [String] = []) {
        report.termination = TerminationDetails(namespace: namespace, code: code, details: details)
    }

    /// A main thread idle in its run loop.
    static let idleMain: [Spec] = [
        .sys("libsystem_kernel.dylib", "mach_msg2_trap"), .sys("libsystem_kernel.dylib", "mach_msg2_internal"),
        .sys("libsystem_kernel.dylib", "mach_msg"), .sys("CoreFoundation", "__CFRunLoopServiceMachPort"),
        .sys("CoreFoundation", "__CFRunLoopRun"), .sys("CoreFoundation", "CFRunLoopRunSpecific"),
        .sys("UIKitCore", "UIApplicationMain"), .app("main"), .sys("dyld", "start"),
    ]

    /// The tail of a main thread below app code.
    static let mainTail: [Spec] = [.sys("UIKitCore", "-[UIApplication sendEvent:]"), .sys("UIKitCore", "UIApplicationMain"),
                                   .app("main"), .sys("dyld", "start")]
}
