import Foundation
import VigilTestSupport

/// Type-checks Swift snippets the way an app's files are compiled against the package: with
/// `swiftc`, the package's built modules, and stand-in `UIKit` / `SwiftUI` modules where the
/// real ones do not exist (Linux).
///
/// Every snippet is compiled as a module of its own in Swift 6 mode with the
/// `MemberImportVisibility` feature, so a name or member the snippet reaches only through a
/// module it does not import is an error, as it will be by default in a later language mode.
struct SnippetCompiler {
    /// The outcome of one compilation.
    struct Outcome: CustomStringConvertible {
        var succeeded: Bool
        var diagnostics: String
        var description: String { succeeded ? "compiled" : "failed:\n\(diagnostics)" }
    }

    let swiftc: URL
    let binDirectory: URL
    let root: URL
    let scratch: TemporaryDirectory
    /// `-I` directory holding the stand-in UI modules.
    let standInModules: URL

    init() throws {
        root = BuildProducts.packageRoot
        binDirectory = BuildProducts.directory
        guard FileManager.default.fileExists(atPath: binDirectory.appendingPathComponent("Modules/Vigil.swiftmodule").path) else {
            throw TestSupportError("\(binDirectory.path)/Modules/Vigil.swiftmodule is missing: build the package first (`make test`)")
        }
        swiftc = try Self.findSwiftc()
        scratch = try TemporaryDirectory(prefix: "docs-snippets")
        standInModules = scratch.url.appendingPathComponent("stand-ins", isDirectory: true)
        try FileManager.default.createDirectory(at: standInModules, withIntermediateDirectories: true)
        for module in ["UIKit", "SwiftUI"] {
            let source = root.appendingPathComponent("Tests/VigilDocsTests/StandIns/\(module).swift")
            let outcome = try run(["-emit-module", "-parse-as-library", "-module-name", module, "-swift-version", "6",
                                   "-emit-module-path", standInModules.appendingPathComponent("\(module).swiftmodule").path,
                                   source.path])
            guard outcome.succeeded else { throw TestSupportError("the \(module) stand-in does not compile: \(outcome)") }
        }
    }

    /// Type-checks `sources` (file name → code) as one module; `scriptMode` compiles the first
    /// file as `main.swift` (top-level statements), otherwise as a library (`@main` allowed).
    func typecheck(_ sources: [(name: String, code: String)], scriptMode: Bool = false) throws -> Outcome {
        let directory = scratch.url.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var paths: [String] = []
        for (name, code) in sources {
            let url = directory.appendingPathComponent(name)
            try code.write(to: url, atomically: true, encoding: .utf8)
            paths.append(url.path)
        }
        var arguments = ["-typecheck", "-module-name", "Snippet", "-swift-version", "6",
                         "-enable-upcoming-feature", "MemberImportVisibility",
                         "-I", binDirectory.appendingPathComponent("Modules").path, "-I", standInModules.path]
        if !scriptMode { arguments.append("-parse-as-library") }
        #if os(macOS)
        // The macOS SDK's SwiftUI (if it is found before the stand-in) needs macOS 11 or later;
        // the package's modules are built for macOS 13.
        #if arch(arm64)
        arguments += ["-target", "arm64-apple-macos14"]
        #else
        arguments += ["-target", "x86_64-apple-macos14"]
        #endif
        #endif
        arguments += clangModuleArguments()
        return try run(arguments + paths)
    }

    /// The module maps of the package's C targets, which the Swift modules import.
    private func clangModuleArguments() -> [String] {
        var arguments: [String] = []
        let sources = root.appendingPathComponent("Sources")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: sources.path))?.sorted() ?? [] where name.hasPrefix("C") {
            let systemMap = sources.appendingPathComponent("\(name)/module.modulemap")
            let generatedMap = binDirectory.appendingPathComponent("\(name).build/module.modulemap")
            if FileManager.default.fileExists(atPath: systemMap.path) {
                arguments += ["-Xcc", "-fmodule-map-file=\(systemMap.path)"]
            } else if FileManager.default.fileExists(atPath: generatedMap.path) {
                arguments += ["-Xcc", "-fmodule-map-file=\(generatedMap.path)",
                              "-Xcc", "-I\(sources.appendingPathComponent("\(name)/include").path)"]
            }
        }
        return arguments
    }

    private func run(_ arguments: [String]) throws -> Outcome {
        let outcome = try ChildProcess.run(swiftc, arguments, timeout: 300)
        return Outcome(succeeded: outcome.exitStatus == 0, diagnostics: outcome.standardError + outcome.standardOutput)
    }

    /// `swiftc` beside the `swift` that runs the tests: `$SWIFT_EXEC`, else the first on `PATH`.
    private static func findSwiftc() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["SWIFT_EXEC"], FileManager.default.isExecutableFile(atPath: explicit) {
            return URL(fileURLWithPath: explicit)
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TestSupportError("swiftc is not on PATH (set SWIFT_EXEC to it)")
    }
}
