import Foundation
import VigilCommandLine
import VigilCore
import VigilServer
#if canImport(Glibc)
import Glibc
#endif

/// `vigil-bench server`: sustained ingest into a real `vigil serve` process, SQLite and
/// PostgreSQL side by side in one run — events/s, request latency p50/p99, the server's RSS,
/// and the processing lag (event stored → processed) — plus the event decoder against
/// `JSONDecoder` on the same batch. Writes `bench-results/server.json`.
enum ServerBenchmark: Command {
    static let name = "server"
    static let summary = "ingest throughput, latency, RSS and processing lag on SQLite and PostgreSQL"
    static let usage = """
        usage: vigil-bench server [--postgres URL [--postgres-data DIR]] [--seconds N] [--clients N] [--batch N]
                                  [--no-gzip] [--postgres-only] [--process-at-ingest on|off] [--server-threads N] [--handler-nice N] [--vigil PATH] [--output FILE] [--work-dir DIR]
                                  [--latency-log PREFIX]

        Starts `vigil serve` (from --vigil, or beside this binary) on a fresh SQLite file, then on the
        PostgreSQL database --postgres (skipped without it), and drives each with N clients (default 8)
        posting batches of --batch realistic events (default 100, gzip unless --no-gzip) for --seconds
        (default 60) over keep-alive loopback connections. After the load it waits for processing to
        finish and reads each event's lag from the database. --process-at-ingest is passed to
        `vigil serve` (off: the workers claim every event from the database, for comparisons);
        --server-threads sets its HTTP threads (default 8, one per client), --handler-nice their nice value (the
        server's default unless given). CPU per event is read from /proc for the
        server, the client and (with --postgres-data, the cluster's data directory) PostgreSQL.
        --postgres-only skips the SQLite side (for comparing PostgreSQL runs; the goals need both).
        --latency-log writes PREFIX-sqlite.tsv and PREFIX-postgres.tsv: one line per request (client,
        start ms since the load began, latency ms), to see when the slow requests happen.
        Goals: ≥ 20,000 events/s on SQLite, p99 < 100 ms, processing lag p95 < 2 s.
        """

    struct SideResult: Codable {
        var database: String
        var seconds: Double
        var requests: Int
        var failedRequests: Int
        var events: Int
        var eventsPerSecond: Double
        var p50Ms: Double
        var p99Ms: Double
        var maxMs: Double
        var serverMaxRSSMB: Double
        var processedAll: Bool
        var drainSeconds: Double
        var processingLagP50Ms: Double?
        var processingLagP95Ms: Double?
        /// `vigil serve` user + system CPU from the start of the load until processing caught up.
        var serverCPUSeconds: Double
        /// ``serverCPUSeconds`` per event: ingest and processing, independent of the machine's load.
        var serverCPUMicrosecondsPerEvent: Double
        /// Of which during the load (ingest and the processing that kept up).
        var serverCPUSecondsDuringLoad: Double
        /// The PostgreSQL cluster's CPU over the same span (nil for SQLite, or without --postgres-data).
        var databaseCPUMicrosecondsPerEvent: Double?
        /// The load generator's own CPU per event (making, gzipping and sending batches), which
        /// shares the machine's cores with the server.
        var clientCPUMicrosecondsPerEvent: Double
    }

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["postgres", "postgres-data", "seconds", "clients", "batch", "vigil", "output", "work-dir",
                                   "process-at-ingest", "server-threads", "handler-nice", "latency-log"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["no-gzip", "postgres-only"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let seconds = try arguments.number("seconds", default: 60.0)
        let clients = try arguments.number("clients", default: 8)
        let batchSize = try arguments.number("batch", default: 100)
        guard seconds > 0, clients >= 1, clients <= 256, batchSize >= 1, batchSize <= 10_000 else {
            throw UsageError("--seconds > 0, --clients 1…256, --batch 1…10000")
        }
        let gzip = !arguments.flag("no-gzip")
        let serverThreads = try arguments.number("server-threads", default: 8)
        let serveArguments = ["--threads", String(serverThreads)]
            + (arguments.value("process-at-ingest").map { ["--process-at-ingest", $0] } ?? [])
            + (arguments.value("handler-nice").map { ["--handler-nice", $0] } ?? [])
        let vigil = arguments.value("vigil")
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("vigil").path
        guard FileManager.default.isExecutableFile(atPath: vigil) else { throw UsageError("no vigil binary at \(vigil); pass --vigil") }
        let output = arguments.value("output") ?? "bench-results/server.json"
        let work = URL(fileURLWithPath: arguments.value("work-dir") ?? NSTemporaryDirectory())
            .appendingPathComponent("vigil-bench-server-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let events = try ServerBenchEvents(batchSize: batchSize, seed: 42)
        log("server: batch of \(batchSize) events = \(events.template.count) bytes"
            + (gzip ? ", \(try GzipDeflater.compress(events.template, level: 1).count) gzipped" : ""))
        let decoder = decoderComparison(events.template, batchSize: batchSize)
        log(String(format: "server: decoding %.1f µs/event (tape) vs %.1f µs/event (JSONDecoder): %.2f× faster",
                   decoder.tape, decoder.foundation, decoder.foundation / decoder.tape))

        // Enough for 40 requests per client and second (above the SQLite side's rate), made once for both sides.
        let perClient = Int((seconds * 40).rounded(.up))
        let madeStart = Date()
        let bodies = PreparedBodies(events: events, clients: clients, perClient: perClient, spacing: 1.0 / 40, gzip: gzip)
        log(String(format: "server: made %d request bodies per client in %.1f s (%.0f MB)", perClient,
                   Date().timeIntervalSince(madeStart), Double(bodies.totalBytes) / 1_048_576))
        let postgresOnly = arguments.flag("postgres-only")
        guard !postgresOnly || arguments.value("postgres") != nil else { throw UsageError("--postgres-only needs --postgres URL") }
        var sqlite: SideResult?
        if !postgresOnly {
            sqlite = try runSide(.sqlite(path: work.appendingPathComponent("bench.sqlite").path), vigil: vigil, work: work,
                                 events: events, bodies: bodies, seconds: seconds, clients: clients, gzip: gzip,
                                 serveArguments: serveArguments, latencyLog: arguments.value("latency-log").map { $0 + "-sqlite.tsv" })
        }
        var postgres: SideResult?
        if let url = arguments.value("postgres") {
            let postmaster = arguments.value("postgres-data").flatMap(ServerBenchCPU.postmasterPID(dataDirectory:))
            postgres = try runSide(.postgres(url: url), vigil: vigil, work: work, events: events, bodies: bodies, seconds: seconds,
                                   clients: clients, gzip: gzip, databasePID: postmaster, serveArguments: serveArguments,
                                   latencyLog: arguments.value("latency-log").map { $0 + "-postgres.tsv" })
        } else {
            log("server: no --postgres URL; PostgreSQL side skipped")
        }
        var result: [String: Any] = [
            "suite": "server",
            "config": ["seconds": seconds, "clients": clients, "batch": batchSize, "gzip": gzip,
                       "cores": ProcessInfo.processInfo.activeProcessorCount, "templateBytes": events.template.count,
                       "processAtIngest": arguments.value("process-at-ingest") ?? "on", "serverThreads": serverThreads,
                       "handlerNice": arguments.value("handler-nice") ?? "default",
                       "bodiesMadeBeforeLoadPerClient": perClient] as [String: Any],
            "decoder": ["tapeMicrosecondsPerEvent": decoder.tape, "jsonDecoderMicrosecondsPerEvent": decoder.foundation,
                        "speedup": decoder.foundation / decoder.tape],
            // 20,000 events/s on 2 cores leave 100 µs of CPU per event for ingest and processing.
            "goals": ["sqliteEventsPerSecond": 20_000, "p99Ms": 100, "processingLagP95Ms": 2_000,
                      "serverCPUMicrosecondsPerEvent": 100],
        ]
        var met: [String: Bool] = [:]
        if let sqlite {
            result["sqlite"] = try dictionary(sqlite)
            met["sqliteEventsPerSecond"] = sqlite.eventsPerSecond >= 20_000
            met["sqliteP99"] = sqlite.p99Ms < 100
            met["sqliteLagP95"] = (sqlite.processingLagP95Ms ?? .infinity) < 2_000
            met["sqliteServerCPU"] = sqlite.serverCPUMicrosecondsPerEvent <= 100
        }
        if let postgres {
            result["postgres"] = try dictionary(postgres)
            if let sqlite {
                result["ratios"] = ["postgresToSqliteEventsPerSecond": postgres.eventsPerSecond / max(sqlite.eventsPerSecond, 1),
                                    "postgresToSqliteP99": postgres.p99Ms / max(sqlite.p99Ms, 0.001)]
            }
            met["postgresP99"] = postgres.p99Ms < 100
            met["postgresLagP95"] = (postgres.processingLagP95Ms ?? .infinity) < 2_000
        }
        result["met"] = met
        let data = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: output).deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: output))
        log("server: wrote \(output)")
        return 0
    }

    // MARK: One side

    static func runSide(_ location: DatabaseLocation, vigil: String, work: URL, events: ServerBenchEvents, bodies: PreparedBodies,
                        seconds: Double,
                        clients: Int, gzip: Bool, databasePID: Int32? = nil, serveArguments: [String] = [],
                        latencyLog: String? = nil, afterLoad: ((UInt16, Project) throws -> Void)? = nil) throws -> SideResult {
        let label = location.description.hasPrefix("sqlite") ? "sqlite" : "postgres"
        // The project is made here, so its key is known without parsing the server's banner.
        let store = try ServerStore.open(location, connections: 2)
        let (project, key) = try store.createProject(name: "bench-\(UUID().uuidString.prefix(8))")
        store.database.close()
        let port = try freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: vigil)
        server.arguments = ["serve", "--db", dbArgument(location), "--port", String(port), "--admin-token", "bench",
                            "--rate-limit", "0",
                            "--spool-dir", work.appendingPathComponent("spool").path] + serveArguments
        server.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        server.standardError = errors
        try server.run()
        defer {
            if server.isRunning { server.terminate() }
            var status: Int32 = 0
            waitpid(server.processIdentifier, &status, 0)
        }
        try waitForHealth(port: port)
        log("server: \(label): vigil serve (pid \(server.processIdentifier)) on port \(port); \(clients) clients for \(Int(seconds)) s")

        let rss = RSSSampler(pid: server.processIdentifier)
        rss.start()
        let results = LoadResults()
        let serverCPUStart = ServerBenchCPU.seconds(of: server.processIdentifier)
        let databaseCPUStart = databasePID.map(ServerBenchCPU.treeSeconds(of:))
        let clientCPUStart = ServerBenchCPU.selfSeconds()
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let started = DispatchTime.now().uptimeNanoseconds
        // One thread per client: concurrentPerform would run only as many at once as there are cores.
        let finished = DispatchGroup()
        for client in 0..<clients {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
            var latencies: [Double] = []
            var starts: [Double] = []
            var failures = 0
            var sequence = 0
            guard let connection = try? ServerLoadClient(port: port) else { results.add(latencies: [], failures: 1, events: 0); return }
            var headers = [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")]
            if gzip { headers.append(("Content-Encoding", "gzip")) }
            var sent = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                sequence += 1
                let body = bodies.body(client: client, sequence: sequence)
                let begin = DispatchTime.now().uptimeNanoseconds
                let answer = try? connection.send(method: "POST", path: "/api/v1/events", headers: headers, body: body)
                latencies.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                starts.append(Double(begin - started) / 1e6)
                if answer?.status == 200 { sent += events.idOffsets.count } else { failures += 1 }
            }
            results.add(latencies: latencies, failures: failures, events: sent)
            results.addTimeline(client: client, starts: starts, latencies: latencies)
            }
        }
        finished.wait()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let clientCPU = ServerBenchCPU.selfSeconds() - clientCPUStart
        let serverCPULoad = ServerBenchCPU.seconds(of: server.processIdentifier) - serverCPUStart
        // Wait for processing to catch up, then read every event's lag.
        let drainStart = Date()
        let reader = try ServerStore.open(location, connections: 2)
        defer { reader.database.close() }
        var processedAll = false
        while Date().timeIntervalSince(drainStart) < 300 {
            let counts = try reader.eventCounts(projectID: project.id)
            if counts.pending + counts.reprocess == 0 { processedAll = true; break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let drainSeconds = Date().timeIntervalSince(drainStart)
        let serverCPU = ServerBenchCPU.seconds(of: server.processIdentifier) - serverCPUStart
        var databaseCPU: Double?
        if let databasePID, let databaseCPUStart { databaseCPU = ServerBenchCPU.treeSeconds(of: databasePID) - databaseCPUStart }
        rss.stop()
        let lags = try lagPercentiles(reader, projectID: project.id)
        // The caller's measurements against the loaded server, after the load's figures are taken.
        try afterLoad?(port, project)
        let (latencies, failures, sentEvents) = results.snapshot()
        if let latencyLog { try results.timelineText().write(toFile: latencyLog, atomically: true, encoding: .utf8) }
        let sorted = latencies.sorted()
        func percentile(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))] }
        let side = SideResult(database: label, seconds: elapsed, requests: latencies.count, failedRequests: failures, events: sentEvents,
                              eventsPerSecond: Double(sentEvents) / elapsed, p50Ms: percentile(0.5), p99Ms: percentile(0.99),
                              maxMs: sorted.last ?? 0, serverMaxRSSMB: rss.maxMegabytes, processedAll: processedAll,
                              drainSeconds: drainSeconds, processingLagP50Ms: lags.p50, processingLagP95Ms: lags.p95,
                              serverCPUSeconds: serverCPU, serverCPUMicrosecondsPerEvent: serverCPU * 1e6 / Double(max(sentEvents, 1)),
                              serverCPUSecondsDuringLoad: serverCPULoad,
                              databaseCPUMicrosecondsPerEvent: databaseCPU.map { $0 * 1e6 / Double(max(sentEvents, 1)) },
                              clientCPUMicrosecondsPerEvent: clientCPU * 1e6 / Double(max(sentEvents, 1)))
        log(String(format: "server: %@: %.0f events/s, p50 %.1f ms, p99 %.1f ms, RSS %.0f MB, lag p95 %@ ms, %d failed; "
                        + "CPU µs/event: server %.1f (%.0f%% during load), database %@, client %.1f; drain %.1f s",
                   label, side.eventsPerSecond, side.p50Ms, side.p99Ms, side.serverMaxRSSMB,
                   side.processingLagP95Ms.map { String(format: "%.0f", $0) } ?? "–", failures,
                   side.serverCPUMicrosecondsPerEvent, 100 * serverCPULoad / max(serverCPU, 1e-9),
                   side.databaseCPUMicrosecondsPerEvent.map { String(format: "%.1f", $0) } ?? "–",
                   side.clientCPUMicrosecondsPerEvent, drainSeconds))
        return side
    }

    static func dbArgument(_ location: DatabaseLocation) -> String {
        switch location {
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let url): return url
        }
    }

    /// p50 and p95 of `processed_at − received_at` over the project's events, from the database.
    static func lagPercentiles(_ store: ServerStore, projectID: Int64) throws -> (p50: Double?, p95: Double?) {
        try store.database.read { connection in
            let count = try connection.scalar("SELECT COUNT(*) FROM apm_event WHERE project_id = ? AND processed_at IS NOT NULL",
                                              [.integer(projectID)]).int ?? 0
            guard count > 0 else { return (nil, nil) }
            func at(_ q: Double) throws -> Double? {
                try connection.scalar("""
                    SELECT processed_at - received_at FROM apm_event WHERE project_id = ? AND processed_at IS NOT NULL
                    ORDER BY processed_at - received_at LIMIT 1 OFFSET ?
                    """, [.integer(projectID), .int(min(count - 1, Int(Double(count - 1) * q)))]).double
            }
            return (try at(0.5), try at(0.95))
        }
    }

    // MARK: Decoder comparison

    static func decoderComparison(_ body: Data, batchSize: Int) -> (tape: Double, foundation: Double) {
        func measure(_ work: () -> Void) -> Double {
            var best = Double.infinity
            for _ in 0..<5 {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<10 { work() }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(10 * batchSize))
            }
            return best
        }
        let tape = measure { _ = try? EventBatchDecoder.decode(body) }
        let foundation = measure { _ = try? EventJSON.decodeBatch(body) }
        return (tape, foundation)
    }

    // MARK: Helpers

    static func waitForHealth(port: UInt16) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let client = try? ServerLoadClient(port: port),
               let answer = try? client.send(method: "GET", path: "/healthz", headers: [], body: Data()), answer.status == 200 {
                return
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw LoadError("vigil serve did not answer /healthz on port \(port)")
    }

    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw LoadError("no free port") }
        return UInt16(bigEndian: address.sin_port)
    }

    static func dictionary(_ side: SideResult) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(side))
    }

    static func log(_ text: String) { CommandDispatcher.writeStandardError(text) }
}

/// Latencies and counts from every client thread.
private final class LoadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var latencies: [Double] = []
    private var failures = 0
    private var events = 0

    func add(latencies more: [Double], failures moreFailures: Int, events moreEvents: Int) {
        lock.lock(); defer { lock.unlock() }
        latencies += more
        failures += moreFailures
        events += moreEvents
    }

    private var timeline: [(client: Int, start: Double, latency: Double)] = []

    func addTimeline(client: Int, starts: [Double], latencies: [Double]) {
        lock.lock(); defer { lock.unlock() }
        for (start, latency) in zip(starts, latencies) { timeline.append((client, start, latency)) }
    }

    /// One line per request, by start time: client, start (ms since the load began), latency (ms).
    func timelineText() -> String {
        lock.lock(); defer { lock.unlock() }
        return timeline.sorted { $0.start < $1.start }
            .map { String(format: "%d\t%.3f\t%.3f\n", $0.client, $0.start, $0.latency) }.joined()
    }

    func snapshot() -> ([Double], Int, Int) {
        lock.lock(); defer { lock.unlock() }
        return (latencies, failures, events)
    }
}

/// Samples a process's resident set size (`VmRSS` in `/proc/PID/status`) twice a second.
private final class RSSSampler: @unchecked Sendable {
    private let pid: Int32
    private let lock = NSLock()
    private var maximumKB = 0
    private var running = false

    init(pid: Int32) { self.pid = pid }

    var maxMegabytes: Double {
        lock.lock(); defer { lock.unlock() }
        return Double(maximumKB) / 1024
    }

    func start() {
        lock.lock(); running = true; lock.unlock()
        Thread.detachNewThread { [self] in
            while true {
                lock.lock()
                let keepGoing = running
                lock.unlock()
                guard keepGoing else { return }
                sample()
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    func stop() {
        sample()
        lock.lock(); running = false; lock.unlock()
    }

    private func sample() {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            lock.lock()
            maximumKB = max(maximumKB, kilobytes)
            lock.unlock()
        }
    }
}
