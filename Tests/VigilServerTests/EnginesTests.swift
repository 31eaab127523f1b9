import Foundation
import Testing
import VigilCore
import VigilSymbols
import VigilTestSupport
@testable import VigilServer

/// The server with the real engines plugged in: `VigilSymbols` turning uploads into SymCaches
/// and `VigilReports` importing, classifying and fingerprinting reports. The debug files are
/// the symbols module's committed fixtures; expected names come from `llvm-symbolizer`.
@Suite("symbolication and report engines")
struct EnginesTests {
    static let fixtures = BuildProducts.packageRoot.appendingPathComponent("Tests/Fixtures")
    /// `Tests/Fixtures/elf/c-dwarf5-O2`: non-PIE x86_64, first PT_LOAD at 0x200000.
    static let elfPath = fixtures.appendingPathComponent("elf/c-dwarf5-O2")
    static let elfImage = ImageInfo(name: "c-dwarf5-O2", id: "24ea14de2a12e69f7bfeefe10b492fbe6e554690", arch: "x86_64",
                                    loadAddress: Address(0x20_0000), size: 0x3000, path: "/opt/fixture/c-dwarf5-O2")

    static func makeServer() throws -> TestServer {
        try TestServer(.sqlite, realEngines: true)
    }

    /// A crash in `fibonacci` (its first instruction) called from `main` (return address 0x201284).
    static func crashInFixture() -> Event {
        var event = SampleEvents.make(.crash, index: 9)
        event.id = UUID()
        event.images = [elfImage]
        event.payload = .crash(CrashPayload(signal: "SIGSEGV", code: "SEGV_MAPERR", faultAddress: Address(0),
                                            threads: [CrashThread(crashed: true, name: "main",
                                                                  frames: [Address(0x20_13f0), Address(0x20_1284)])]))
        return event
    }

    @Test("a bare ELF upload is keyed by its build id and symbolicates stacks as llvm-symbolizer does")
    func elfUpload() throws {
        let server = try Self.makeServer()
        let upload = try server.uploadSymbols(try Data(contentsOf: Self.elfPath))
        #expect(upload.status == 200, "\(upload)")
        let slices = upload.json["slices"] as? [[String: Any]] ?? []
        #expect(slices.map { $0["debugId"] as? String } == [Self.elfImage.id])
        #expect(slices.first?["arch"] as? String == "x86_64")
        #expect((slices.first?["symcacheBytes"] as? Int ?? 0) > 100)
        #expect(try server.postEvents([Self.crashInFixture()]).status == 200)
        try server.app.context.processor.drain()
        let issue = try #require(try server.store.issues(projectID: server.project.id).first)
        let detail = try #require(try server.store.issue(projectID: server.project.id, id: issue.id))
        #expect(detail.frames.map(\.function) == ["fibonacci", "main"])
        #expect(detail.frames.map(\.line) == [7, 36])
        #expect(detail.frames.first?.file?.hasSuffix("fixtures/src/main.c") == true)
        #expect(detail.frames.allSatisfy { $0.inApp })
        // The diagnosis comes from the report rules: a fault at address 0 is a null pointer.
        #expect(detail.classification?.category == "null-pointer")
        let listed = try server.adminGet("/api/v1/symbols")
        #expect((listed.json["uploaded"] as? [[String: Any]])?.first?["debugId"] as? String == Self.elfImage.id)
    }

    @Test("symbols uploaded after the events re-process them into the symbolicated issue")
    func lateUpload() throws {
        let server = try Self.makeServer()
        #expect(try server.postEvents([Self.crashInFixture(), Self.crashInFixture()]).status == 200)
        try server.app.context.processor.drain()
        let before = try server.store.issues(projectID: server.project.id)
        #expect(before.count == 1 && before.first?.symbolicated == false)
        #expect(try server.store.missingSymbols(projectID: server.project.id).map(\.debugID) == [Self.elfImage.id])
        let upload = try server.uploadSymbols(try Data(contentsOf: Self.elfPath))
        #expect(upload.json["requeuedEvents"] as? Int == 2)
        try server.app.context.processor.drain()
        let after = try server.store.issues(projectID: server.project.id)
        #expect(after.count == 1)
        #expect(after.first?.events == 2)
        #expect(after.first?.symbolicated == true)
        #expect(after.first?.title.contains("fibonacci") == true)
        #expect(try server.store.missingSymbols(projectID: server.project.id).isEmpty)
    }

    @Test("a dSYM bundle uploads as a zip or a tar.gz", arguments: ["zip", "tar.gz"])
    func archivedDSYM(format: String) throws {
        let server = try Self.makeServer()
        let work = try TemporaryDirectory(prefix: "archive")
        let archive = work.file("upload.\(format)")
        let outcome: SpawnedProcess.Outcome
        if format == "zip" {
            outcome = try SpawnedProcess.run("/usr/bin/env", ["python3", "-c",
                "import shutil,sys; shutil.make_archive(sys.argv[1], 'zip', sys.argv[2], 'app-arm64-O2.dSYM')",
                work.file("upload").path, Self.fixtures.appendingPathComponent("macho").path])
        } else {
            outcome = try SpawnedProcess.run("/bin/tar", ["czf", archive.path, "-C", Self.fixtures.appendingPathComponent("macho").path,
                                                          "app-arm64-O2.dSYM", "app-arm64-O2"])
        }
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let upload = try server.uploadSymbols(try Data(contentsOf: archive))
        #expect(upload.status == 200, "\(upload)")
        let slices = upload.json["slices"] as? [[String: Any]] ?? []
        // The fixture's own UUID, read from its dSYM, so a rebuilt fixture (`make fixtures`) still passes.
        let dwarf = try ObjectFile.debugFiles(inBundle: Self.fixtures.appendingPathComponent("macho/app-arm64-O2.dSYM").path)
        let expected = try dwarf.map { try ObjectFile(path: $0).slices.compactMap { $0.id?.description } }.flatMap { $0 }
        #expect(expected.count == 1)
        #expect(slices.map { $0["debugId"] as? String } == expected)
        #expect(slices.first?["kind"] as? String == "dsym", "the dSYM's DWARF wins over the executable")
    }

    @Test("uploads that hold no debug information are refused with the reason")
    func badUploads() throws {
        let server = try Self.makeServer()
        var generator = SeededGenerator(seed: 7)
        let noise = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let random = try server.uploadSymbols(noise)
        #expect(random.status == 400)
        #expect(random.json["error"] as? String == "unreadable_symbols")
        // A zip holding only a text file: readable, but nothing to symbolicate with.
        let work = try TemporaryDirectory(prefix: "archive")
        try Data("not a binary".utf8).write(to: work.file("readme.txt"))
        _ = try SpawnedProcess.run("/usr/bin/env", ["python3", "-c",
            "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED); z.write(sys.argv[2],'../../escape/readme.txt'); z.close()",
            work.file("text.zip").path, work.file("readme.txt").path])
        let text = try server.uploadSymbols(try Data(contentsOf: work.file("text.zip")))
        #expect(text.status == 400)
        #expect(text.json["error"] as? String == "no_symbols")
        // The same zip with a flipped byte in the member fails its CRC.
        var corrupt = try Data(contentsOf: work.file("text.zip"))
        corrupt[40] ^= 0xFF
        let broken = try server.uploadSymbols(corrupt)
        #expect(broken.status == 400, "\(broken)")
        #expect(try server.uploadSymbols(Data()).status == 400)
        #expect(try server.client.post("/api/v1/symbols", Data("x".utf8), headers: ["Authorization": "Bearer \(server.ingestKey)"]).status == 401)
    }

    @Test("crash-report files are imported as events and diagnosed", arguments: [
        "apple-crash-reports/handcrafted.crash", "metrickit/ios_uncaugh_exception_payload.json",
    ])
    func reportImport(file: String) throws {
        let server = try Self.makeServer()
        let body = try Data(contentsOf: BuildProducts.corpus.appendingPathComponent(file))
        let answer = try server.client.post("/api/v1/reports", body, headers: ["Authorization": "Bearer \(server.ingestKey)"])
        #expect(answer.status == 200, "\(answer)")
        let accepted = answer.json["accepted"] as? [String] ?? []
        #expect(!accepted.isEmpty)
        try server.app.context.processor.drain()
        let issues = try server.store.issues(projectID: server.project.id)
        #expect(!issues.isEmpty)
        let detail = try #require(try server.store.issue(projectID: server.project.id, id: issues[0].id))
        #expect(detail.classification != nil)
        #expect(!detail.frames.isEmpty)
        // Posting the same report again stores nothing new: its event id is derived from it.
        let again = try server.client.post("/api/v1/reports", body, headers: ["Authorization": "Bearer \(server.ingestKey)"])
        #expect(again.json["stored"] as? Int == 0)
        let garbage = try server.client.post("/api/v1/reports", Data("hello".utf8), headers: ["Authorization": "Bearer \(server.ingestKey)"])
        #expect(garbage.status == 400)
    }
}

