import Foundation
import VigilCommandLine
import VigilCore
import VigilServer

/// `vigil demo`: a server on an SQLite file under `./.vigil/`, the sample app's scenarios run
/// through the real SDK pipeline into it, a summary, and the dashboard to look at the result.
enum DemoCommand: Command {
    static let name = "demo"
    static let summary = "run the sample app's scenarios into a local server and open the dashboard"
    static let usage = """
        usage: vigil demo [--dir DIR] [--port N] [--admin-token TOKEN] [--sample PATH] [--keep] [--quick]
                          [--history-days N] [--seed N] [--exit-after SECONDS]

          --dir          where the demo's files live (default .vigil): demo.sqlite, and runs/ with
                         each vigil-sample run's SDK directory and output (both replaced unless --keep)
          --port         dashboard and API port (default 8750; 0 picks a free one)
          --admin-token  the dashboard's token (default: a new one, printed in the login link)
          --sample       the vigil-sample executable (default: beside this vigil)
          --keep         keep the database of an earlier demo (the demo project gets a new ingest key)
          --quick        a 1.5 s hang instead of the 3 s and 400 ms ones (tests)
          --history-days first replay N days (0…90, default 0) of a simulated app population
                         through the ingest API, every event tagged simulated (make demo: 14)
          --seed         the simulation's seed (default 1): the same seed, the same history
          --exit-after   stop after SECONDS instead of serving until Ctrl-C (tests)

        Starts the server (with /demo/api/… endpoints that answer slowly or fail), creates the
        `demo` project, uploads vigil-sample's debug information, then runs vigil-sample's hang,
        frames, launch, network, crash and relaunch scenarios: each starts the SDK with its
        durable store and uploader pointed at this server (`--server`, `--key`), as an app does.
        Waits until the server has processed every event, prints a summary and the dashboard
        link, and keeps serving.
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["dir", "port", "admin-token", "sample", "exit-after", "history-days", "seed"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["keep", "quick"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument \"\(arguments.positional[0])\"") }
        let directory = URL(fileURLWithPath: arguments.value("dir") ?? ".vigil", isDirectory: true)
        let sample = arguments.value("sample") ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("vigil-sample").path
        guard FileManager.default.isExecutableFile(atPath: sample) else {
            throw UsageError("no vigil-sample at \(sample): build it (`swift build --product vigil-sample`) or pass --sample")
        }
        let exitAfter: Double? = try arguments.value("exit-after").map { text in
            guard let seconds = Double(text), seconds >= 0 else { throw UsageError("--exit-after: not a number of seconds") }
            return seconds
        }
        let historyDays = try arguments.value("history-days").map { text -> Int in
            guard let days = Int(text), (0...90).contains(days) else { throw UsageError("--history-days: expected a number of days, 0…90") }
            return days
        } ?? 0
        let seed = try arguments.value("seed").map { text -> UInt64 in
            guard let seed = UInt64(text) else { throw UsageError("--seed: expected a non-negative integer") }
            return seed
        } ?? 1
        let keep = arguments.flag("keep")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("demo.sqlite").path
        let runs = directory.appendingPathComponent("runs", isDirectory: true)
        if !keep {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            try? FileManager.default.removeItem(at: runs)
        }
        var options = ServerOptions(database: .sqlite(path: database),
                                    spoolDirectory: directory.appendingPathComponent("spool").path)
        // The demo backend sleeps in its handlers (slow responses): more threads keep the uploads and
        // the dashboard from queueing behind them.
        options.http = HTTPServerConfiguration(port: try arguments.number("port", default: UInt16(8750)), threads: 16)
        let token = arguments.value("admin-token") ?? SecretToken.generate(prefix: "va_")
        options.adminToken = token
        options.defaultProject = "demo"
        let quick = arguments.flag("quick")
        return try ServeCommand.serve(options, exitAfter: exitAfter, extraRoutes: DemoRoutes.routes()) { app in
            try runScenarios(app: app, sample: sample, token: token, runs: runs, quick: quick, historyDays: historyDays, seed: seed)
        }
    }

    /// Uploads the sample's symbols, runs its scenarios into the server, waits for processing
    /// and prints the summary.
    static func runScenarios(app: ServerApplication, sample: String, token: String, runs: URL, quick: Bool,
                             historyDays: Int = 0, seed: UInt64 = 1) throws {
        let project = app.firstStart.defaultProject
        // An existing demo project (--keep) keeps its data; only its key is new, as the old one
        // is stored hashed.
        let key = try app.firstStart.defaultProjectKey ?? app.context.store.rotateIngestKey(projectID: project.id)
        guard let base = URL(string: "http://127.0.0.1:\(app.port)/") else { throw DemoError("no URL for port \(app.port)") }
        var client = DemoHTTPClient(base: base, token: token, project: project.name)
        let today = Int64((Date().timeIntervalSince1970 / 86_400).rounded(.down))
        if historyDays > 0 {
            try replayHistory(DemoHistory(days: historyDays, seed: seed, today: today), client: client, key: key, app: app)
            // The summary is about the live runs: today's events (the history ends yesterday).
            client.scope = "range=custom&from=\(DashboardFilter.dayString(today))&to=\(DashboardFilter.dayString(today + 1))"
        }

        say("uploading vigil-sample's debug information (\(sample))")
        let binary = try Data(contentsOf: URL(fileURLWithPath: sample))
        let upload = try client.send("POST", "api/v1/symbols", query: "name=vigil-sample", body: binary, timeoutSeconds: 120)
        guard upload.status == 200 else { throw DemoError("symbol upload failed: HTTP \(upload.status) \(upload.text.prefix(300))") }

        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        // The SDK never records calls to its own server's host, so the sample reaches the demo
        // backend under the machine's other name, as an app's API and its Vigil server differ.
        let api = "http://localhost:\(app.port)"
        let common = ["--server", "http://127.0.0.1:\(app.port)", "--key", key, "--upload-delay-ms", "200",
                      "--upload-timeout", "30"]
        let scenarios = DemoScenario.all(quick: quick, api: api)
        var uploaded = 0
        for (index, scenario) in scenarios.enumerated() {
            let command = (["vigil-sample"] + scenario.arguments).joined(separator: " ")
            say("[\(index + 1)/\(scenarios.count)] \(command): \(scenario.title)")
            let outcome = try scenario.run(sample: sample, common: common, runs: runs, index: index + 1)
            uploaded += outcome.accepted
            let result = scenario.dies == nil ? "\(outcome.accepted) event(s) uploaded and acknowledged" : outcome.detail
            say(String(format: "      %@ (%.1f s)", result, outcome.seconds))
        }

        app.context.processor.wake()
        let summary = DemoSummary(client: client)
        let (overview, waited) = try summary.waitForProcessing(expected: uploaded, timeoutSeconds: 60)
        var text = try summary.text(overview: overview, uploaded: uploaded, runs: scenarios.count, waited: waited)
        text += "\ndashboard: http://127.0.0.1:\(app.port)/login?token=\(token)&next=/issues\n"
        text += "demo backend the network scenario called: \(api)/demo/api/products/1\n"
        text += "(each run's SDK directory and output: \(runs.path)/; the data: \(runs.deletingLastPathComponent().path)/demo.sqlite)\n"
        text += "Ctrl-C stops the server.\n"
        CommandDispatcher.writeStandardOutput(text)
    }

    /// Posts the history day by day to `POST /api/v1/events` with the project's ingest key, as
    /// JSON lines in batches of 2,000, and waits until the server has processed it.
    static func replayHistory(_ history: DemoHistory, client: DemoHTTPClient, key: String, app: ServerApplication) throws {
        say("replaying \(history.days) day(s) of a simulated app population (seed \(history.seed), every event tagged simulated)")
        let started = Date()
        var stored = 0, sent = 0
        for day in 0..<history.days {
            let events = history.events(day: day)
            var start = 0
            while start < events.count {
                let batch = Array(events[start..<min(start + 2000, events.count)])
                start += batch.count
                let answer = try client.send("POST", "api/v1/events", body: try EventJSON.encodeLines(batch),
                                             contentType: "application/x-ndjson", bearer: key)
                guard answer.status == 200 else {
                    throw DemoError("history upload refused: HTTP \(answer.status) \(answer.text.prefix(300))")
                }
                struct Outcome: Decodable { var stored: Int; var rejected: [Rejection]?; struct Rejection: Decodable {} }
                let outcome = try JSONDecoder().decode(Outcome.self, from: answer.body)
                if let rejected = outcome.rejected, !rejected.isEmpty {
                    throw DemoError("history upload: \(rejected.count) event(s) rejected: \(answer.text.prefix(300))")
                }
                stored += outcome.stored
                sent += batch.count
            }
        }
        app.context.processor.wake()
        let deadline = Date().addingTimeInterval(300)
        while try app.context.store.eventCounts().pending > 0 {
            guard Date() < deadline else { throw DemoError("the history was not processed within 300 s") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        say(String(format: "      %d event(s) sent, %d newly stored and processed (%.1f s)", sent, stored, Date().timeIntervalSince(started)))
    }

    private static func say(_ text: String) {
        CommandDispatcher.writeStandardOutput("vigil demo: \(text)\n")
    }
}
