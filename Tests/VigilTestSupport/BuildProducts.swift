import Foundation

/// Where the package's built executables are, for tests that run them as real processes.
///
/// `make test` builds every product before it runs the tests and exports `VIGIL_BIN_DIR`;
/// without it, the directory of the running test bundle is used (SwiftPM puts the test bundle
/// beside the executables it built).
public enum BuildProducts {
    /// The build's binary directory, e.g. `.build/debug`.
    public static var directory: URL {
        if let explicit = ProcessInfo.processInfo.environment["VIGIL_BIN_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit, isDirectory: true)
        }
        var url = URL(fileURLWithPath: executablePath()).resolvingSymlinksInPath()
        // .build/debug/VigilPackageTests.xctest[/…] → .build/debug
        while url.path != "/" {
            url.deleteLastPathComponent()
            if !url.lastPathComponent.hasSuffix(".xctest") && !url.path.contains(".xctest/") { break }
        }
        return url
    }

    /// The URL of the executable product `name` (e.g. `vigil-sample`), failing with a message
    /// that says how to build it when it is missing.
    public static func executable(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw TestSupportError("\(url.path) is missing: run `make test` (it builds every product first) "
                + "or `swift build --product \(name)` before `swift test`")
        }
        return url
    }

    /// The package's root directory (the one holding Package.swift).
    public static var packageRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// `Tests/Fixtures/corpus`: real crash reports and MetricKit payloads from public projects,
    /// committed with their licenses (their origin is in `Tests/Fixtures/SOURCES.md`).
    public static var corpus: URL {
        packageRoot.appendingPathComponent("Tests/Fixtures/corpus", isDirectory: true)
    }

    private static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// A failure of the test support itself (a missing tool or product), with the fix in its text.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
