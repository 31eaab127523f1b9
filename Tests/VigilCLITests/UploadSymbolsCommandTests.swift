import Foundation
import Testing
import VigilTestSupport

/// `vigil upload-symbols` as a build phase uses it: Xcode's variables, a dSYM Xcode did not
/// write, and the same dSYM sent on every build.
@Suite("vigil upload-symbols")
struct UploadSymbolsCommandTests {
    static let fixtures = BuildProducts.packageRoot.appendingPathComponent("Tests/Fixtures/macho")

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Outcome {
        // The Xcode variables of the test's own environment (none, normally) must not leak in.
        var environment = environment
        for name in ["DWARF_DSYM_FOLDER_PATH", "DEBUG_INFORMATION_FORMAT", "CONFIGURATION", "VIGIL_SERVER_URL",
                     "VIGIL_ADMIN_TOKEN"] where environment[name] == nil {
            environment[name] = ""
        }
        return try ChildProcess.run(try BuildProducts.executable("vigil"), ["upload-symbols"] + arguments,
                                    environment: environment, timeout: 120)
    }

    @Test("--help documents the Xcode build settings the phase uses")
    func helpNamesXcodeSettings() throws {
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil"), ["upload-symbols", "--help"], timeout: 30)
        #expect(outcome.exitStatus == 0)
        for word in ["DWARF_DSYM_FOLDER_PATH", "DWARF_DSYM_FILE_NAME", "DEBUG_INFORMATION_FORMAT", "dwarf-with-dsym",
                     "TARGET_NAME", "Contents/Resources/DWARF", "xcodebuild archive", ".xcarchive", "already uploaded"] {
            #expect(outcome.standardOutput.contains(word), "--help does not mention \(word)")
        }
    }

    @Test("a dSYM folder Xcode did not write names DEBUG_INFORMATION_FORMAT = dwarf-with-dsym and the value in force")
    func missingDSYMFolder() throws {
        let directory = try TemporaryDirectory(prefix: "no-dsym")
        let missing = directory.file("Build/Products/Debug-iphonesimulator").path
        // No PATH: the phase's ${DWARF_DSYM_FOLDER_PATH} is used. No server is contacted.
        let outcome = try Self.run(["--server", "http://127.0.0.1:9", "--admin-token", "t"],
                                   environment: ["DWARF_DSYM_FOLDER_PATH": missing, "DEBUG_INFORMATION_FORMAT": "dwarf",
                                                 "CONFIGURATION": "Debug"])
        #expect(outcome.exitStatus == 1, "\(outcome)")
        #expect(outcome.standardError.contains("no dSYM at \(missing)"))
        #expect(outcome.standardError.contains("DEBUG_INFORMATION_FORMAT is dwarf-with-dsym"))
        #expect(outcome.standardError.contains("here it is dwarf for the Debug configuration"))
        #expect(!outcome.standardError.contains("usage:"), "not a usage error: the command line was right")

        // A folder that exists but holds no dSYM (the Debug products folder): the same advice.
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: true)
        try Data("app".utf8).write(to: URL(fileURLWithPath: missing).appendingPathComponent("Shop"))
        let empty = try Self.run([missing, "--server", "http://127.0.0.1:9", "--admin-token", "t"])
        #expect(empty.exitStatus == 1)
        #expect(empty.standardError.contains("no .dSYM bundle in \(missing)"))
        #expect(empty.standardError.contains("dwarf-with-dsym"))

        // A named bundle that is not there.
        let bundle = try Self.run([directory.file("Shop.app.dSYM").path, "--server", "http://127.0.0.1:9", "--admin-token", "t"])
        #expect(bundle.exitStatus == 1)
        #expect(bundle.standardError.contains("DEBUG_INFORMATION_FORMAT"))
    }

    @Test("the same dSYM sent twice is stored once; the second run says it is already uploaded and sends nothing")
    func secondUploadIsNoOp() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let dsym = Self.fixtures.appendingPathComponent("app-arm64-O2.dSYM").path
        let arguments = [dsym, "--server", server.baseURL.absoluteString, "--admin-token", ServeProcess.adminToken]
        let first = try Self.run(arguments)
        #expect(first.exitStatus == 0, "\(first)")
        #expect(first.standardOutput.contains("stored"))
        let listed = try HTTPTestClient(port: server.port).get("/api/v1/symbols", headers: ["Authorization": "Bearer \(ServeProcess.adminToken)"])
        let uploadedAt = ((listed.json["uploaded"] as? [[String: Any]])?.first?["uploadedAt"]).map { "\($0)" }
        #expect(uploadedAt != nil, "\(listed)")

        let second = try Self.run(arguments)
        #expect(second.exitStatus == 0, "\(second)")
        #expect(second.standardOutput.contains("already uploaded"), "\(second)")
        #expect(second.standardOutput.contains("nothing sent"))
        #expect(!second.standardOutput.contains("stored;"))
        let relisted = try HTTPTestClient(port: server.port).get("/api/v1/symbols", headers: ["Authorization": "Bearer \(ServeProcess.adminToken)"])
        let slices = relisted.json["uploaded"] as? [[String: Any]] ?? []
        #expect(slices.count == 1)
        #expect(slices.first.flatMap { $0["uploadedAt"] }.map { "\($0)" } == uploadedAt, "the stored copy was not replaced")

        let forced = try Self.run(arguments + ["--force"])
        #expect(forced.exitStatus == 0)
        #expect(forced.standardOutput.contains("stored"), "\(forced)")
    }

    @Test("with no PATH, every dSYM bundle in ${DWARF_DSYM_FOLDER_PATH} is sent; an .xcarchive sends its dSYMs folder")
    func xcodeFolderAndArchive() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "dsym-folder")
        let products = directory.file("Release-iphoneos")
        let archive = directory.file("Shop.xcarchive/dSYMs")
        for folder in [products, archive] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("app-arm64-O2.dSYM"),
                                         to: products.appendingPathComponent("Shop.app.dSYM"))
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("libshapes-arm64.dylib.dSYM"),
                                         to: products.appendingPathComponent("Shapes.framework.dSYM"))
        try Data("not debug information".utf8).write(to: products.appendingPathComponent("Shop.swiftmodule"))
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("app-x86_64-O2.dSYM"),
                                         to: archive.appendingPathComponent("Shop.app.dSYM"))

        let phase = try Self.run([], environment: ["DWARF_DSYM_FOLDER_PATH": products.path,
                                                   "VIGIL_SERVER_URL": server.baseURL.absoluteString,
                                                   "VIGIL_ADMIN_TOKEN": ServeProcess.adminToken])
        #expect(phase.exitStatus == 0, "\(phase)")
        #expect(phase.standardOutput.components(separatedBy: ": stored;").count == 3, "two bundles sent: \(phase)")

        let ci = try Self.run([directory.file("Shop.xcarchive").path, "--server", server.baseURL.absoluteString,
                               "--admin-token", ServeProcess.adminToken])
        #expect(ci.exitStatus == 0, "\(ci)")
        #expect(ci.standardOutput.contains("x86_64"), "\(ci)")
    }
}

extension UploadSymbolsCommandTests {
    @Test("an app binary uploaded first does not hold back its dSYM; after the dSYM, the binary is skipped")
    func dSYMReplacesBinary() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        let options = ["--server", server.baseURL.absoluteString, "--admin-token", ServeProcess.adminToken]
        let binary = Self.fixtures.appendingPathComponent("app-arm64-O2").path
        let dsym = Self.fixtures.appendingPathComponent("app-arm64-O2.dSYM").path

        let first = try Self.run([binary] + options)
        #expect(first.exitStatus == 0 && first.standardOutput.contains("stored"), "\(first)")
        let better = try Self.run([dsym] + options)
        #expect(better.exitStatus == 0, "\(better)")
        #expect(better.standardOutput.contains("stored"), "the dSYM (with DWARF) must replace the binary: \(better)")
        let listed = try HTTPTestClient(port: server.port).get("/api/v1/symbols", headers: ["Authorization": "Bearer \(ServeProcess.adminToken)"])
        let kinds = (listed.json["uploaded"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "")" }
        #expect(kinds == ["dsym"], "\(listed)")

        let again = try Self.run([binary] + options)
        #expect(again.exitStatus == 0)
        #expect(again.standardOutput.contains("already uploaded"), "the binary adds nothing to the stored dSYM: \(again)")
    }
}
