import Foundation
import Testing
import VigilCore
import VigilTestSupport

/// `vigil-sample … --server URL --key KEY`: the real SDK pipeline in a real process — the
/// durable store, the uploader, the flush before exit, and the crash that only the relaunch
/// can report.
@Suite("vigil-sample uploading to a server (real process)")
struct SampleProcessUploadTests {
    @Test("a hang run uploads its events through the store before it exits, and --out holds the same events")
    func hangUploads() throws {
        let log = IngestLog()
        let server = try LoopbackHTTPServer { log.record($0) }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "sample-upload")
        let out = directory.file("events.jsonl")
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil-sample"),
                                           ["hang", "--block-ms", "400", "--threshold-ms", "250", "--server",
                                            server.baseURL.absoluteString, "--key", "wiring-key", "--data-dir",
                                            directory.file("sdk").path, "--out", out.path], timeout: 60)
        #expect(outcome.exitStatus == 0, "\(outcome)")
        let written = try EventJSON.decodeBatch(Data(contentsOf: out)).map { try $0.get() }
        #expect(written.contains { $0.type == .hang }, "\(written.map(\.type))")
        #expect(Set(log.eventIDs) == Set(written.map(\.id.uuidString)), "the server got exactly the stored events")
        #expect(outcome.standardOutput.contains("\(written.count) accepted, 0 rejected, 0 left unsent"), "\(outcome.standardOutput)")
        // Everything acknowledged was deleted from the device.
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory.file("sdk/events").path)
        #expect(!segments.isEmpty, "the SDK used its durable store")
    }

    @Test("a server that refuses: the run waits --upload-timeout, says what was left, exits 3 and keeps the events")
    func refusedUpload() throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 500, headers: [:], body: Data()) }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "sample-refused")
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil-sample"),
                                           ["hang", "--block-ms", "400", "--threshold-ms", "250", "--server",
                                            server.baseURL.absoluteString, "--key", "k", "--data-dir", directory.file("sdk").path,
                                            "--upload-delay-ms", "0", "--upload-timeout", "1"], timeout: 60)
        #expect(outcome.exitStatus == 3, "\(outcome)")
        #expect(outcome.standardError.contains("not acknowledged within 1.0 s"), "\(outcome.standardError)")
        #expect(outcome.standardError.contains("serverError"), "the failed tries are named: \(outcome.standardError)")
    }

    @Test("a crash cannot upload; the relaunch with the same data directory recovers the report and uploads it")
    func crashThenRelaunch() throws {
        let log = IngestLog()
        let server = try LoopbackHTTPServer { log.record($0) }
        defer { server.stop() }
        let directory = try TemporaryDirectory(prefix: "sample-crash-upload")
        let sample = try BuildProducts.executable("vigil-sample")
        let common = ["--data-dir", directory.file("sdk").path, "--server", server.baseURL.absoluteString, "--key", "wiring-key"]
        let crashed = try ChildProcess.run(sample, ["crash", "--kind", "segv"] + common, timeout: 60)
        #expect(crashed.signal == SIGSEGV, "\(crashed)")
        #expect(!log.eventTypes.contains("crash"))
        let relaunch = try ChildProcess.run(sample, ["report"] + common, timeout: 60)
        #expect(relaunch.exitStatus == 0, "\(relaunch)")
        #expect(log.eventTypes.filter { $0 == "crash" }.count == 1, "\(log.eventTypes)")
        #expect(relaunch.standardOutput.contains("\"recovered\":1"), "\(relaunch.standardOutput)")
        #expect(relaunch.standardOutput.contains("0 left unsent"), "\(relaunch.standardOutput)")
    }

    @Test("--server needs --key and an http URL; the upload options need --server")
    func optionErrors() throws {
        let sample = try BuildProducts.executable("vigil-sample")
        for (arguments, message) in [
            (["--server", "http://127.0.0.1:1"], "--server needs --key"),
            (["--server", "ftp://x", "--key", "k"], "expected an http(s) URL"),
            (["--key", "k"], "--key needs --server"),
            (["--upload-timeout", "3"], "--upload-timeout needs --server"),
        ] {
            let outcome = try ChildProcess.run(sample, ["hang", "--block-ms", "1"] + arguments, timeout: 30)
            #expect(outcome.exitStatus != 0)
            #expect(outcome.standardError.contains(message), "\(arguments): \(outcome.standardError)")
        }
    }
}
