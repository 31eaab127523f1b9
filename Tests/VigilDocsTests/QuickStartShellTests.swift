import Foundation
import Testing
import VigilTestSupport

/// The README's shell steps run as written, against a `vigil serve` on loopback: the Xcode Run
/// Script phase with Xcode's variables set, the CI upload of an archive, and `vigil serve`.
///
/// The one substitution: the example server `https://vigil.example.com` becomes the test's
/// loopback server (nothing leaves the machine). `xcodebuild` does not exist here, so the CI
/// block's `vigil` lines run on an archive laid out as `xcodebuild archive` lays it out.
@Suite("README shell steps run", .serialized)
struct QuickStartShellTests {
    static let root = BuildProducts.packageRoot
    static let exampleServer = "https://vigil.example.com"

    static func snippet(_ kind: String) throws -> DocsSnippet {
        let found = try DocsSnippet.all(in: "README.md", root: root).filter { $0.kind == kind }
        #expect(found.count == 1, "README.md should have one \(kind) block")
        return try #require(found.first)
    }

    /// Runs `script` with /bin/sh as Xcode runs a Run Script phase (`-e`: stop at the first error).
    static func sh(_ script: String, environment: [String: String], in directory: URL) throws -> ChildProcess.Outcome {
        var environment = environment
        environment["PATH"] = BuildProducts.directory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for name in ["VIGIL_SERVER_URL", "VIGIL_ADMIN_TOKEN"] where environment[name] == nil { environment[name] = "" }
        return try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-e", "-c", script], environment: environment,
                                    currentDirectory: directory, timeout: 120)
    }

    /// A product folder as an Xcode build leaves it: the app's dSYM, whose DWARF file is named
    /// after the target.
    static func xcodeProducts(in directory: URL, target: String) throws -> URL {
        let products = directory.appendingPathComponent("Build/Products/Release-iphoneos", isDirectory: true)
        let dwarf = products.appendingPathComponent("\(target).app.dSYM/Contents/Resources/DWARF", isDirectory: true)
        try FileManager.default.createDirectory(at: dwarf, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: root.appendingPathComponent("Tests/Fixtures/macho/app-arm64-O2.dSYM/Contents/Resources/DWARF/app-arm64-O2"),
            to: dwarf.appendingPathComponent(target))
        return products
    }

    @Test("the Run Script phase uploads the dSYM once; its input file is the DWARF file Xcode writes")
    func xcodeRunScriptPhase() throws {
        let script = try Self.snippet("xcode-run-script")
        let inputFiles = try Self.snippet("xcode-input-files")
        #expect(script.code.contains("${DWARF_DSYM_FOLDER_PATH}"))
        let server = try ServeProcess()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "run-script")
        let products = try Self.xcodeProducts(in: directory.url, target: "Shop")
        try ServeProcess.adminToken.write(to: directory.file(".vigil-admin-token"), atomically: true, encoding: .utf8)
        let xcode = ["SRCROOT": directory.url.path, "DWARF_DSYM_FOLDER_PATH": products.path,
                     "DWARF_DSYM_FILE_NAME": "Shop.app.dSYM", "TARGET_NAME": "Shop",
                     "DEBUG_INFORMATION_FORMAT": "dwarf-with-dsym", "CONFIGURATION": "Release"]
        let code = script.code.replacingOccurrences(of: Self.exampleServer, with: server.baseURL.absoluteString)
        #expect(code != script.code, "the phase should name the example server")

        let first = try Self.sh(code, environment: xcode, in: directory.url)
        #expect(first.exitStatus == 0, "\(script): \(first)")
        #expect(first.standardOutput.contains("stored"), "\(first)")
        let second = try Self.sh(code, environment: xcode, in: directory.url)
        #expect(second.exitStatus == 0, "\(second)")
        #expect(second.standardOutput.contains("already uploaded"), "an unchanged build sends nothing: \(second)")

        // The input files are the DWARF file (so Xcode orders the phase after dsymutil) and
        // every file the script reads.
        let lines = inputFiles.code.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(lines.count == 2)
        for line in lines {
            var path = line
            for (name, value) in xcode { path = path.replacingOccurrences(of: "${\(name)}", with: value) }
            #expect(!path.contains("$"), "unknown variable in \(path)")
            #expect(FileManager.default.fileExists(atPath: path), "\(line) resolves to \(path), which the phase does not use")
        }
        #expect(lines.first?.hasSuffix("/Contents/Resources/DWARF/${TARGET_NAME}") == true)
    }

    @Test("the CI step uploads the archive's dSYMs")
    func ciUpload() throws {
        let snippet = try Self.snippet("ci-upload")
        #expect(snippet.code.contains("xcodebuild archive"))
        let server = try ServeProcess()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "ci-upload")
        let dsyms = directory.file("build/Shop.xcarchive/dSYMs")
        try FileManager.default.createDirectory(at: dsyms, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Tests/Fixtures/macho/app-arm64-O2.dSYM"),
                                         to: dsyms.appendingPathComponent("Shop.app.dSYM"))
        let vigilLines = snippet.code.components(separatedBy: "\n").filter { $0.hasPrefix("vigil ") }
        #expect(vigilLines.count == 1)
        let code = vigilLines.joined(separator: "\n").replacingOccurrences(of: Self.exampleServer, with: server.baseURL.absoluteString)
        let outcome = try Self.sh(code, environment: ["VIGIL_ADMIN_TOKEN": ServeProcess.adminToken], in: directory.url)
        #expect(outcome.exitStatus == 0, "\(snippet): \(outcome)")
        #expect(outcome.standardOutput.contains("Shop.app.dSYM"), "\(outcome)")
        #expect(outcome.standardOutput.contains("stored"), "\(outcome)")
    }

    @Test("`vigil serve` as written prints the admin token, the dashboard link and the ingest key")
    func serve() throws {
        let snippet = try Self.snippet("serve")
        let command = try #require(snippet.code.components(separatedBy: "\n").first { $0.hasPrefix("vigil serve") })
        let bare = command.components(separatedBy: "#")[0].trimmingCharacters(in: .whitespaces)
        let directory = try TemporaryDirectory(prefix: "serve-snippet")
        // A free port instead of the default 8750 (another server may hold it), and an end.
        let outcome = try Self.sh(bare + " --port 0 --exit-after 1", environment: ["VIGIL_ADMIN_TOKEN": ""], in: directory.url)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(outcome.standardOutput.contains("admin token"), "\(outcome)")
        #expect(outcome.standardOutput.contains("dashboard: http://127.0.0.1:"))
        #expect(outcome.standardOutput.contains("ingest key"))
    }

    @Test("the manifest evaluates and asks for this package's Vigil product")
    func manifest() throws {
        let snippet = try Self.snippet("manifest")
        let directory = try TemporaryDirectory(prefix: "manifest")
        try snippet.code.write(to: directory.file("Package.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: directory.file("Sources/Shop"), withIntermediateDirectories: true)
        try "print(1)\n".write(to: directory.file("Sources/Shop/main.swift"), atomically: true, encoding: .utf8)
        let swift = try #require((ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("swift") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }, "swift is not on PATH")
        let outcome = try ChildProcess.run(swift, ["package", "dump-package"], currentDirectory: directory.url, timeout: 300)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        let dependency = try #require((manifest["dependencies"] as? [[String: Any]])?.first?["sourceControl"] as? [[String: Any]])
        let location = "\(dependency.first?["location"] ?? "")"
        let requirement = "\(dependency.first?["requirement"] ?? "")"
        #expect(location.contains(".git"), "\(location)")
        #expect(requirement.contains("0.1.0"), "\(requirement)")
        // The product it names is a library of this package, under the identity the URL gives.
        #expect(snippet.code.contains(".product(name: \"Vigil\", package: \"vigil\")"))
        let url = try #require(snippet.code.range(of: #"https://[^"]+\.git"#, options: .regularExpression).map { String(snippet.code[$0]) })
        #expect(URL(string: url)?.deletingPathExtension().lastPathComponent.lowercased() == "vigil")
        let ours = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(ours.contains(".library(name: \"Vigil\", targets: [\"Vigil\"])"))
    }
}
