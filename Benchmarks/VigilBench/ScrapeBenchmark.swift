import Foundation
import VigilCommandLine
import VigilCore
import VigilServer
#if canImport(Glibc)
import Glibc
#endif

/// `vigil-bench scrape`: what `/metrics` costs ingest on a large table. A real `vigil serve` on
/// a database holding 2,000,000 events (bulk-loaded first) takes the server benchmark's load —
/// 8 clients posting gzip batches of 100 — in alternating phases without and with 8 scrapers
/// polling `/metrics`, and the ingest p99 of both is compared. Writes `bench-results/scrape.json`.
enum ScrapeBenchmark: Command {
    static let name = "scrape"
    static let summary = "ingest p99 with and without 8 concurrent /metrics scrapers, on 2,000,000 stored events"
    static let usage = """
        usage: vigil-bench scrape [--postgres URL] [--postgres-only] [--events N] [--seconds N] [--rounds N] [--clients N]
                                  [--scrapers N] [--scrape-interval-ms N] [--vigil PATH] [--output FILE] [--work-dir DIR]

        For SQLite (a fresh file) and, with --postgres, PostgreSQL: bulk-loads --events events (default
        2,000,000) into a new project, starts `vigil serve` on it, then runs --rounds (default 2) pairs of
        phases of --seconds each (default 10): --clients (default 8) post batches of 100 gzip events, and in
        the second phase of each pair --scrapers (default 8) also GET /metrics, each every
        --scrape-interval-ms (default 100). Reports ingest p50/p99 without and with scrapes, their ratio,
        the scrapes' own latency, and (for reference) how long the count the old /metrics ran — a
        GROUP BY over the whole table — takes on it. Goal: p99 with scrapes within 10 % of without.
        """

    struct Phase: Codable {
        var scrapes: Bool
        var seconds: Double
        var requests: Int
        var failedRequests: Int
        var eventsPerSecond: Double
        var scrapeCount: Int
    }

    struct SideResult: Codable {
        var database: String
        var storedEventsBefore: Int
        var seedSeconds: Double
        var fullCountQueryMs: Double
        var phases: [Phase]
        var p50MsWithout: Double
        var p99MsWithout: Double
        var p50MsWith: Double
        var p99MsWith: Double
        var p99Ratio: Double
        var scrapes: Int
        var scrapeP50Ms: Double
        var scrapeP99Ms: Double
        var failedScrapes: Int
        var scrapedStoredEvents: Double
    }

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["postgres", "events", "seconds", "rounds", "clients", "scrapers", "scrape-interval-ms", "vigil",
                                   "output", "work-dir"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["postgres-only"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let eventCount = try arguments.number("events", default: 2_000_000)
        let seconds = try arguments.number("seconds", default: 10.0)
        let rounds = try arguments.number("rounds", default: 2)
        let clients = try arguments.number("clients", default: 8)
        let scrapers = try arguments.number("scrapers", default: 8)
        let interval = try arguments.number("scrape-interval-ms", default: 100.0)
        guard eventCount >= 0, seconds > 0, rounds >= 1, clients >= 1, clients <= 64, scrapers >= 1, scrapers <= 64, interval >= 0 else {
            throw UsageError("--events ≥ 0, --seconds > 0, --rounds ≥ 1, --clients and --scrapers 1…64, --scrape-interval-ms ≥ 0")
        }
        let vigil = arguments.value("vigil")
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("vigil").path
        guard FileManager.default.isExecutableFile(atPath: vigil) else { throw UsageError("no vigil binary at \(vigil); pass --vigil") }
        let output = arguments.value("output") ?? "bench-results/scrape.json"
        let work = URL(fileURLWithPath: arguments.value("work-dir") ?? NSTemporaryDirectory())
            .appendingPathComponent("vigil-bench-scrape-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let events = try ServerBenchEvents(batchSize: 100, seed: 42)
        let perClient = Int((seconds * Double(rounds) * 2 * 40).rounded(.up))
        let bodies = PreparedBodies(events: events, clients: clients, perClient: perClient, spacing: 1.0 / 40, gzip: true)
        let setup = Setup(vigil: vigil, work: work, events: events, bodies: bodies, eventCount: eventCount, seconds: seconds,
                          rounds: rounds, clients: clients, scrapers: scrapers, interval: interval / 1000)
        var sides: [String: Any] = [:]
        var met: [String: Bool] = [:]
        var locations: [DatabaseLocation] = []
        if !arguments.flag("postgres-only") { locations.append(.sqlite(path: work.appendingPathComponent("scrape.sqlite").path)) }
        if let url = arguments.value("postgres") { locations.append(.postgres(url: url)) }
        guard !locations.isEmpty else { throw UsageError("--postgres-only needs --postgres URL") }
        for location in locations {
            let side = try runSide(location, setup)
            sides[side.database] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(side))
            met["\(side.database)P99Within10Percent"] = side.p99Ratio <= 1.10
        }
        let result: [String: Any] = [
            "suite": "scrape",
            "config": ["events": eventCount, "seconds": seconds, "rounds": rounds, "clients": clients, "scrapers": scrapers,
                       "scrapeIntervalMs": interval, "batch": 100, "gzip": true,
                       "cores": ProcessInfo.processInfo.activeProcessorCount] as [String: Any],
            "sides": sides,
            "goals": ["p99RatioWithScrapesMax": 1.10],
            "met": met,
        ]
        let data = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: output).deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: output))
        ServerBenchmark.log("scrape: wrote \(output)")
        return 0
    }

    struct Setup {
        var vigil: String
        var work: URL
        var events: ServerBenchEvents
        var bodies: PreparedBodies
        var eventCount: Int
        var seconds: Double
        var rounds: Int
        var clients: Int
        var scrapers: Int
        var interval: Double
    }

    static func runSide(_ location: DatabaseLocation, _ setup: Setup) throws -> SideResult {
        let label = location.description.hasPrefix("sqlite") ? "sqlite" : "postgres"
        let store = try ServerStore.open(location, connections: 2)
        let (project, key) = try store.createProject(name: "scrape-\(UUID().uuidString.prefix(8))")
        let seedStart = Date()
        try seed(store, projectID: project.id, count: setup.eventCount)
        let seedSeconds = Date().timeIntervalSince(seedStart)
        // What every scrape cost before the counts were kept: counting the whole table.
        let countStart = DispatchTime.now().uptimeNanoseconds
        _ = try store.database.read { try $0.query("SELECT state, COUNT(*) AS n FROM apm_event GROUP BY state") }
        let fullCountMs = Double(DispatchTime.now().uptimeNanoseconds - countStart) / 1e6
        let storedBefore = try store.eventCounts()
        store.database.close()
        ServerBenchmark.log(String(format: "scrape: %@: loaded %d events in %.1f s; counting them with GROUP BY takes %.0f ms",
                                   label, setup.eventCount, seedSeconds, fullCountMs))

        let port = try ServerBenchmark.freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: setup.vigil)
        server.arguments = ["serve", "--db", ServerBenchmark.dbArgument(location), "--port", String(port), "--admin-token", "bench",
                            "--rate-limit", "0", "--threads", "8", "--spool-dir", setup.work.appendingPathComponent("spool").path]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            if server.isRunning { server.terminate() }
            var status: Int32 = 0
            waitpid(server.processIdentifier, &status, 0)
        }
        try ServerBenchmark.waitForHealth(port: port)

        let sequences = SequenceCounters(clients: setup.clients)
        var phases: [Phase] = []
        var without: [Double] = []
        var with: [Double] = []
        var scrapeLatencies: [Double] = []
        var failedScrapes = 0
        var lastStored = -1.0
        for round in 0..<setup.rounds {
            for scraping in [false, true] {
                let outcome = try phase(port: port, key: key, setup: setup, sequences: sequences, scraping: scraping)
                if scraping { with += outcome.latencies } else { without += outcome.latencies }
                scrapeLatencies += outcome.scrapeLatencies
                failedScrapes += outcome.failedScrapes
                if let stored = outcome.lastStored { lastStored = stored }
                phases.append(Phase(scrapes: scraping, seconds: outcome.seconds, requests: outcome.latencies.count,
                                    failedRequests: outcome.failures, eventsPerSecond: Double(outcome.events) / outcome.seconds,
                                    scrapeCount: outcome.scrapeLatencies.count))
                ServerBenchmark.log(String(format: "scrape: %@: round %d %@ scrapes: %.0f events/s, p99 %.1f ms%@", label, round + 1,
                                           scraping ? "with" : "without", Double(outcome.events) / outcome.seconds,
                                           percentile(outcome.latencies, 0.99),
                                           scraping ? String(format: ", %d scrapes p99 %.1f ms", outcome.scrapeLatencies.count,
                                                             percentile(outcome.scrapeLatencies, 0.99)) : ""))
            }
        }
        let p99Without = percentile(without, 0.99)
        let p99With = percentile(with, 0.99)
        let side = SideResult(database: label, storedEventsBefore: storedBefore.pending + storedBefore.processed + storedBefore.reprocess,
                              seedSeconds: seedSeconds, fullCountQueryMs: fullCountMs, phases: phases,
                              p50MsWithout: percentile(without, 0.5), p99MsWithout: p99Without,
                              p50MsWith: percentile(with, 0.5), p99MsWith: p99With, p99Ratio: p99With / max(p99Without, 0.001),
                              scrapes: scrapeLatencies.count, scrapeP50Ms: percentile(scrapeLatencies, 0.5),
                              scrapeP99Ms: percentile(scrapeLatencies, 0.99), failedScrapes: failedScrapes,
                              scrapedStoredEvents: lastStored)
        ServerBenchmark.log(String(format: "scrape: %@: ingest p99 %.1f ms without, %.1f ms with scrapes (×%.3f); %d scrapes, p99 %.1f ms",
                                   label, p99Without, p99With, side.p99Ratio, side.scrapes, side.scrapeP99Ms))
        return side
    }

    /// Bulk-loads `count` processed network events, 20,000 per transaction, one a second back
    /// from `olderThan` seconds ago (wrapping after 30 days).
    static func seed(_ store: ServerStore, projectID: Int64, count: Int, olderThan: Double = 0) throws {
        let now = Date()
        let sessions = (0..<500).map { _ in UUID().uuidString }
        let pages = ["HomeViewController", "CartViewController", "CheckoutViewController", "SearchViewController"]
        var made = 0
        while made < count {
            let chunk = min(20_000, count - made)
            let records = (0..<chunk).map { offset -> EventRecord in
                let index = made + offset
                let occurred = Int64((now.timeIntervalSince1970 - olderThan) * 1000) - Int64(index % 2_592_000) * 1000
                let payload = #"{"method":"GET","urlTemplate":"/products/:id","host":"api.example.com","status":200,"#
                    + #""bytesSent":312,"bytesReceived":\#(2048 + index % 4096),"total":\#(80 + index % 400)}"#
                return EventRecord(id: UUID().uuidString, type: "network", occurredAt: occurred, appID: "com.example.shop",
                                   appVersion: "3.\(index % 3).0", appBuild: "41\(index % 3)", os: "iOS", osVersion: "18.1",
                                   deviceModel: "iPhone14,2", page: pages[index % pages.count],
                                   sessionID: sessions[index % sessions.count], durationMs: Double(80 + index % 400),
                                   tagsJSON: "{}", payloadJSON: payload, imagesJSON: nil, contextJSON: nil)
            }
            try store.bulkLoadEvents(projectID: projectID, records, receivedAt: now, processed: true)
            made += chunk
        }
    }

    struct PhaseOutcome {
        var seconds: Double
        var latencies: [Double]
        var failures: Int
        var events: Int
        var scrapeLatencies: [Double]
        var failedScrapes: Int
        var lastStored: Double?
    }

    /// One phase: the clients post for `setup.seconds`; with `scraping`, the scrapers poll `/metrics` meanwhile.
    static func phase(port: UInt16, key: String, setup: Setup, sequences: SequenceCounters, scraping: Bool) throws -> PhaseOutcome {
        let collected = Collected()
        let started = DispatchTime.now().uptimeNanoseconds
        let deadline = started + UInt64(setup.seconds * 1e9)
        let group = DispatchGroup()
        for client in 0..<setup.clients {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var latencies: [Double] = []
                var failures = 0
                var sent = 0
                guard let connection = try? ServerLoadClient(port: port) else { collected.ingest([], failures: 1, events: 0); return }
                let headers = [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json"), ("Content-Encoding", "gzip")]
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let body = setup.bodies.body(client: client, sequence: sequences.next(client))
                    let begin = DispatchTime.now().uptimeNanoseconds
                    let answer = try? connection.send(method: "POST", path: "/api/v1/events", headers: headers, body: body)
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                    if answer?.status == 200 { sent += setup.events.idOffsets.count } else { failures += 1 }
                }
                collected.ingest(latencies, failures: failures, events: sent)
            }
        }
        if scraping {
            for _ in 0..<setup.scrapers {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    var latencies: [Double] = []
                    var failures = 0
                    var stored: Double?
                    guard let connection = try? ServerLoadClient(port: port) else { collected.scrapes([], failures: 1, stored: nil); return }
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        let begin = DispatchTime.now().uptimeNanoseconds
                        let answer = try? connection.send(method: "GET", path: "/metrics", headers: [], body: Data())
                        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                        if let answer, answer.status == 200 {
                            let text = String(decoding: answer.body, as: UTF8.self)
                            for line in text.split(separator: "\n") where line.hasPrefix("vigil_events_stored ") {
                                stored = Double(line.split(separator: " ").last ?? "")
                            }
                        } else {
                            failures += 1
                        }
                        if setup.interval > 0 { Thread.sleep(forTimeInterval: setup.interval) }
                    }
                    collected.scrapes(latencies, failures: failures, stored: stored)
                }
            }
        }
        group.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return collected.outcome(seconds: seconds)
    }

    static func percentile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
    }

    /// Each client's next body number, kept across phases so that every batch is new.
    final class SequenceCounters: @unchecked Sendable {
        private let lock = NSLock()
        private var next: [Int]

        init(clients: Int) { next = Array(repeating: 0, count: clients) }

        func next(_ client: Int) -> Int {
            lock.lock(); defer { lock.unlock() }
            next[client] += 1
            return next[client]
        }
    }

    /// What the threads of one phase measured.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var latencies: [Double] = []
        private var failures = 0
        private var events = 0
        private var scrapeLatencies: [Double] = []
        private var failedScrapes = 0
        private var stored: Double?

        func ingest(_ more: [Double], failures moreFailures: Int, events moreEvents: Int) {
            lock.lock(); defer { lock.unlock() }
            latencies += more
            failures += moreFailures
            events += moreEvents
        }

        func scrapes(_ more: [Double], failures moreFailures: Int, stored value: Double?) {
            lock.lock(); defer { lock.unlock() }
            scrapeLatencies += more
            failedScrapes += moreFailures
            if let value { stored = max(stored ?? 0, value) }
        }

        func outcome(seconds: Double) -> PhaseOutcome {
            lock.lock(); defer { lock.unlock() }
            return PhaseOutcome(seconds: seconds, latencies: latencies, failures: failures, events: events,
                                scrapeLatencies: scrapeLatencies, failedScrapes: failedScrapes, lastStored: stored)
        }
    }
}
