import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCommandLine
import VigilCore
import VigilServer
import VigilSymbols

/// `vigil demo`: a server on an SQLite file under `./.vigil/`, the sample app's scenarios run
/// through the SDK and into it, and the dashboard to look at the result.
enum DemoCommand: Command {
    static let name = "demo"
    static let summary = "run the sample app's scenarios into a local server and open the dashboard"
    static let usage = """
        usage: vigil demo [--dir DIR] [--port N] [--admin-token TOKEN] [--sample PATH] [--keep] [--exit-after SECONDS]

          --dir          where the demo's database lives (default .vigil; its demo.sqlite is replaced unless --keep)
          --port         dashboard and API port (default 8750)
          --sample       the vigil-sample executable (default: beside this vigil)
          --exit-after   stop after SECONDS instead of serving until Ctrl-C (tests)

        Starts the server (with /demo/api/… endpoints that answer slowly or fail, for the sample's
        network scenario), creates the `demo` project, uploads vigil-sample's debug information,
        runs its hang, frames and launch scenarios, waits for processing, prints a summary and the
        dashboard URL, and keeps serving.
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["dir", "port", "admin-token", "sample", "exit-after"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["keep"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let directory = URL(fileURLWithPath: arguments.value("dir") ?? ".vigil", isDirectory: true)
        let sample = arguments.value("sample") ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("vigil-sample").path
        guard FileManager.default.isExecutableFile(atPath: sample) else {
            throw UsageError("no vigil-sample at \(sample): build it (`swift build --product vigil-sample`) or pass --sample")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("demo.sqlite").path
        if !arguments.flag("keep") {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        }
        var options = ServerOptions(database: .sqlite(path: database),
                                    spoolDirectory: directory.appendingPathComponent("spool").path)
        options.http = HTTPServerConfiguration(port: try arguments.number("port", default: UInt16(8750)), threads: 8)
        let token = arguments.value("admin-token") ?? SecretToken.generate(prefix: "va_")
        options.adminToken = token
        options.defaultProject = "demo"
        let exitAfter: Double? = try arguments.value("exit-after").map { text in
            guard let seconds = Double(text), seconds >= 0 else { throw UsageError("--exit-after: not a number of seconds") }
            return seconds
        }
        return try ServeCommand.serve(options, exitAfter: exitAfter, extraRoutes: DemoRoutes.routes()) { app in
            try runScenarios(app: app, sample: sample, token: token, work: directory.appendingPathComponent("runs"))
        }
    }

    /// Uploads the sample's symbols, runs its scenarios into the server and prints a summary.
    static func runScenarios(app: ServerApplication, sample: String, token: String, work: URL) throws {
        guard let key = app.firstStart.defaultProjectKey else {
            throw UsageError("the demo project existed already and its key is not stored; run without --keep")
        }
        let base = URL(string: "http://127.0.0.1:\(app.port)/")!
        say("uploading vigil-sample's debug information")
        let upload = try http("POST", base.appendingPathComponent("api/v1/symbols"), token: token,
                              query: "name=vigil-sample", body: try Data(contentsOf: URL(fileURLWithPath: sample)))
        guard upload.status == 200 else { throw DemoError("symbol upload failed: HTTP \(upload.status) \(upload.text)") }

        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let scenarios: [(title: String, arguments: [String])] = [
            ("a 3 s main-thread hang in blockMainThreadForDemo", ["hang", "--seconds", "3"]),
            ("a 400 ms hang with a 250 ms threshold", ["hang", "--block-ms", "400", "--threshold-ms", "250"]),
            ("60 Hz rendering with drops and a 900 ms freeze, then 120 Hz", ["frames"]),
            ("a scripted cold launch", ["launch"]),
        ]
        for (index, scenario) in scenarios.enumerated() {
            say("running vigil-sample \(scenario.arguments.joined(separator: " ")): \(scenario.title)")
            let out = work.appendingPathComponent("\(index)-\(scenario.arguments[0]).jsonl")
            try? FileManager.default.removeItem(at: out)
            let status = try runProcess(sample, scenario.arguments + ["--out", out.path])
            guard status == 0 else { throw DemoError("vigil-sample \(scenario.arguments[0]) exited with \(status)") }
            // The sample writes the events its SDK emitted; they reach the server through the
            // ingest API exactly as an upload would.
            let events = try Data(contentsOf: out)
            let answer = try http("POST", base.appendingPathComponent("api/v1/events"), token: key, body: events,
                                  contentType: "application/x-ndjson")
            guard answer.status == 200 else { throw DemoError("ingest failed: HTTP \(answer.status) \(answer.text)") }
        }
        app.context.processor.wake()
        let deadline = Date().addingTimeInterval(60)
        while try app.context.store.eventCounts().pending + app.context.store.eventCounts().reprocess > 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
        }
        let project = app.firstStart.defaultProject
        let issues = try app.context.store.issues(projectID: project.id)
        let counts = try app.context.store.eventCounts(projectID: project.id)
        var summary = "\nvigil demo: \(counts.processed) events processed, \(issues.count) issues:\n"
        for issue in issues.prefix(8) {
            summary += "  [\(issue.kind)] \(issue.title) — \(issue.events) event(s)\n"
        }
        if let worst = try app.context.insights.hangs(projectID: project.id).first {
            summary += String(format: "  most hang time: %@ (%.1f s in %lld hangs)\n", worst.page, worst.totalMs / 1000, worst.hangs)
        }
        summary += "\ndashboard: http://127.0.0.1:\(app.port)/login?token=\(token)&next=/issues\n"
        summary += "demo backend for the sample's network scenario: http://127.0.0.1:\(app.port)/demo/api/products/1\n"
        summary += "(Ctrl-C stops the server; the data stays in \(work.deletingLastPathComponent().path)/demo.sqlite)\n"
        CommandDispatcher.writeStandardOutput(summary)
    }

    private static func say(_ text: String) {
        CommandDispatcher.writeStandardOutput("vigil demo: \(text)\n")
    }

    private static func runProcess(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Poll rather than waitUntilExit, which spins a core on Linux.
        while process.isRunning { Thread.sleep(forTimeInterval: 0.05) }
        return process.terminationStatus
    }

    private struct Answer {
        var status: Int
        var text: String
    }

    private static func http(_ method: String, _ url: URL, token: String, query: String? = nil, body: Data,
                             contentType: String = "application/octet-stream") throws -> Answer {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = query
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        request.timeoutInterval = 120
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.result = error.map { .failure($0) }
                ?? .success(Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0,
                                   text: String(decoding: data ?? Data(), as: UTF8.self)))
            done.signal()
        }.resume()
        done.wait()
        return try box.result!.get()
    }

    private final class Box: @unchecked Sendable {
        var result: Result<Answer, any Error>?
    }
}

/// A demo step that failed.
struct DemoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
