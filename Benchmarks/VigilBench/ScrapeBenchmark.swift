import Foundation
import VigilCommandLine
import VigilServer

/// `vigil-bench scrape`: what `/metrics` costs ingest on a large table. A real `vigil serve` on
/// a database holding 2,000,000 events (bulk-loaded first) takes the server benchmark's load —
/// 8 clients posting gzip batches of 100 — in alternating phases without and with 8 scrapers
/// polling `/metrics` (an ``IngestComparison``; one server takes every phase of a database), and
/// the ingest p99 of both is compared. Writes `bench-results/scrape.json`.
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
        let comparison = try IngestComparison(suite: name, words: words, defaultEvents: 2_000_000,
                                              extraValued: ["scrapers", "scrape-interval-ms"])
        defer { comparison.removeWorkDirectory() }
        let arguments = comparison.options.arguments
        let scrapers = try arguments.number("scrapers", default: 8)
        let interval = try arguments.number("scrape-interval-ms", default: 100.0)
        guard scrapers >= 1, scrapers <= 64, interval >= 0 else { throw UsageError("--scrapers 1…64, --scrape-interval-ms ≥ 0") }
        let scraping = Scraping(scrapers: scrapers, interval: interval / 1000)
        try comparison.writeResult(config: ["scrapers": scrapers, "scrapeIntervalMs": interval], goal: "p99RatioWithScrapesMax") { location in
            let side = try runSide(location, comparison, scraping)
            return (side.database, side, side.p99Ratio)
        }
        return 0
    }

    static func runSide(_ location: DatabaseLocation, _ comparison: IngestComparison, _ scraping: Scraping) throws -> SideResult {
        let label = location.description.hasPrefix("sqlite") ? "sqlite" : "postgres"
        var fullCountMs = 0.0
        let seeded = try comparison.seedProject(location) { store in
            // What every scrape cost before the counts were kept: counting the whole table.
            let countStart = DispatchTime.now().uptimeNanoseconds
            _ = try store.database.read { try $0.query("SELECT state, COUNT(*) AS n FROM apm_event GROUP BY state") }
            fullCountMs = Double(DispatchTime.now().uptimeNanoseconds - countStart) / 1e6
        }
        ServerBenchmark.log(String(format: "scrape: %@: loaded %d events in %.1f s; counting them with GROUP BY takes %.0f ms",
                                   label, comparison.options.eventCount, seeded.seedSeconds, fullCountMs))
        let series = try comparison.runPhases(location, database: label, key: seeded.key, treatment: scraping)
        let scrapes = series.runs.map(\.measure)
        let scrapeLatencies = scrapes.flatMap(\.latencies)
        let side = SideResult(database: label, storedEventsBefore: seeded.storedBefore, seedSeconds: seeded.seedSeconds,
                              fullCountQueryMs: fullCountMs,
                              phases: series.runs.map { run in
                                  Phase(scrapes: run.treated, seconds: run.load.seconds, requests: run.load.latencies.count,
                                        failedRequests: run.load.failures, eventsPerSecond: run.load.eventsPerSecond,
                                        scrapeCount: run.measure.latencies.count)
                              },
                              p50MsWithout: series.p50MsWithout, p99MsWithout: series.p99MsWithout,
                              p50MsWith: series.p50MsWith, p99MsWith: series.p99MsWith, p99Ratio: series.p99Ratio,
                              scrapes: scrapeLatencies.count, scrapeP50Ms: IngestComparison.percentile(scrapeLatencies, 0.5),
                              scrapeP99Ms: IngestComparison.percentile(scrapeLatencies, 0.99),
                              failedScrapes: scrapes.reduce(0) { $0 + $1.failures },
                              scrapedStoredEvents: scrapes.last { $0.stored != nil }?.stored ?? -1)
        ServerBenchmark.log(String(format: "scrape: %@: ingest p99 %.1f ms without, %.1f ms with scrapes (×%.3f); %d scrapes, p99 %.1f ms",
                                   label, side.p99MsWithout, side.p99MsWith, side.p99Ratio, side.scrapes, side.scrapeP99Ms))
        return side
    }

    /// The treatment: `scrapers` threads GET `/metrics`, each pausing `interval` seconds between
    /// scrapes, from the phase's start to its end, against the server every phase shares.
    struct Scraping: IngestTreatment {
        /// What the scrapers of one phase measured: every scrape's latency (ms), the failed ones,
        /// and the highest `vigil_events_stored` they read.
        struct Sample: Sendable {
            var latencies: [Double] = []
            var failures = 0
            var stored: Double?
        }

        var scrapers: Int
        var interval: Double
        var name: String { "scrapes" }
        var serverPerPhase: Bool { false }

        func serverArguments(treated: Bool) -> [String] { [] }

        func beside(port: UInt16, until deadline: UInt64) -> Sample {
            let collected = IngestComparison.Outcome<[Sample]>([])
            let group = DispatchGroup()
            let interval = self.interval
            for _ in 0..<scrapers {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    var sample = Sample()
                    if let connection = try? ServerLoadClient(port: port) {
                        while DispatchTime.now().uptimeNanoseconds < deadline {
                            let begin = DispatchTime.now().uptimeNanoseconds
                            let answer = try? connection.send(method: "GET", path: "/metrics", headers: [], body: Data())
                            sample.latencies.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                            if let answer, answer.status == 200 {
                                let text = String(decoding: answer.body, as: UTF8.self)
                                for line in text.split(separator: "\n") where line.hasPrefix("vigil_events_stored ") {
                                    sample.stored = Double(line.split(separator: " ").last ?? "")
                                }
                            } else {
                                sample.failures += 1
                            }
                            if interval > 0 { Thread.sleep(forTimeInterval: interval) }
                        }
                    } else {
                        sample.failures = 1
                    }
                    collected.update { $0?.append(sample) }
                }
            }
            group.wait()
            let samples = collected.value ?? []
            return Sample(latencies: samples.flatMap(\.latencies), failures: samples.reduce(0) { $0 + $1.failures },
                          stored: samples.compactMap(\.stored).max())
        }

        func afterLoad(port: UInt16, treated: Bool, beside: Sample?) throws -> Sample { beside ?? Sample() }

        func describe(_ measure: Sample, treated: Bool) -> String {
            treated ? String(format: ", %d scrapes p99 %.1f ms", measure.latencies.count,
                             IngestComparison.percentile(measure.latencies, 0.99)) : ""
        }
    }
}
