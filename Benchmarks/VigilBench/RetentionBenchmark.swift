import Foundation
import VigilCommandLine
import VigilServer

/// `vigil-bench retention`: what pruning old events costs ingest. A real `vigil serve` on a
/// database holding many events older than a day takes the server benchmark's load (8 clients
/// posting gzip batches of 100) in alternating phases (an ``IngestComparison``): started without
/// `--retention-days`, then with `--retention-days 1`, so that in the second phase the background
/// pruner deletes old rows in batches of 200 while ingest runs. Both phases start a fresh server.
/// The ingest p99 of both is compared. Writes `bench-results/retention.json`.
enum RetentionBenchmark: Command {
    static let name = "retention"
    static let summary = "ingest p99 with and without --retention-days pruning old events in the background"
    static let usage = """
        usage: vigil-bench retention [--postgres URL] [--postgres-only] [--events N] [--seconds N] [--rounds N] [--clients N]
                                     [--vigil PATH] [--output FILE] [--work-dir DIR]

        Loads --events (default 600000) processed events from two days ago back (all to be pruned), then runs --rounds
        (default 2) pairs of --seconds (default 10) phases of --clients (default 8) posting gzip batches of
        100: the first of each pair with a server started without retention, the second with a server
        started with --retention-days 1. Reports ingest p50/p99 of both, their ratio, and the events the
        pruner deleted meanwhile. Goal: p99 with pruning within 10 % of without.
        """

    struct Phase: Codable {
        var pruning: Bool
        var seconds: Double
        var requests: Int
        var failedRequests: Int
        var eventsPerSecond: Double
        var prunedEvents: Double
    }

    struct SideResult: Codable {
        var database: String
        var storedEventsBefore: Int
        var storedEventsAfter: Int
        var seedSeconds: Double
        var phases: [Phase]
        var p50MsWithout: Double
        var p99MsWithout: Double
        var p50MsWith: Double
        var p99MsWith: Double
        var p99Ratio: Double
        var prunedEvents: Double
        var prunedPerSecond: Double
    }

    static func run(_ words: [String]) throws -> Int32 {
        let comparison = try IngestComparison(suite: name, words: words, defaultEvents: 600_000)
        defer { comparison.removeWorkDirectory() }
        let config: [String: Any] = ["retentionDays": 1, "pruneBatchRows": 200, "prunePauseMsMin": 50,
                                     "prunePauseBusyShare": RetentionPruner.busyShare]
        try comparison.writeResult(config: config, goal: "p99RatioWithPruningMax") { location in
            let side = try runSide(location, comparison)
            return (side.database, side, side.p99Ratio)
        }
        return 0
    }

    static func runSide(_ location: DatabaseLocation, _ comparison: IngestComparison) throws -> SideResult {
        let label = location.description.hasPrefix("sqlite") ? "sqlite" : "postgres"
        // One a second from two days ago back: every one older than the retention.
        let seeded = try comparison.seedProject(location, olderThan: 2 * 86_400)
        ServerBenchmark.log(String(format: "retention: %@: loaded %d events in %.1f s", label, comparison.options.eventCount,
                                   seeded.seedSeconds))
        let series = try comparison.runPhases(location, database: label, key: seeded.key, treatment: Pruning())
        let store = try ServerStore.open(location, connections: 2)
        let storedAfter = try IngestComparison.storedEvents(store)
        store.database.close()
        let pruned = series.runs.reduce(0) { $0 + $1.measure }
        let prunedSeconds = series.runs.filter(\.treated).reduce(0) { $0 + $1.load.seconds }
        let side = SideResult(database: label, storedEventsBefore: seeded.storedBefore, storedEventsAfter: storedAfter,
                              seedSeconds: seeded.seedSeconds,
                              phases: series.runs.map { run in
                                  Phase(pruning: run.treated, seconds: run.load.seconds, requests: run.load.latencies.count,
                                        failedRequests: run.load.failures, eventsPerSecond: run.load.eventsPerSecond,
                                        prunedEvents: run.measure)
                              },
                              p50MsWithout: series.p50MsWithout, p99MsWithout: series.p99MsWithout,
                              p50MsWith: series.p50MsWith, p99MsWith: series.p99MsWith, p99Ratio: series.p99Ratio,
                              prunedEvents: pruned, prunedPerSecond: pruned / max(prunedSeconds, 0.001))
        ServerBenchmark.log(String(format: "retention: %@: ingest p99 %.1f ms without, %.1f ms with pruning (×%.3f); %.0f events pruned",
                                   label, side.p99MsWithout, side.p99MsWith, side.p99Ratio, pruned))
        return side
    }

    /// The treatment: a server started with `--retention-days 1` (every phase starts its own),
    /// whose pruner deletes the old events while the load runs; a phase's measure is the events
    /// it pruned (`vigil_events_pruned_total` after the load; 0 without retention).
    struct Pruning: IngestTreatment {
        var name: String { "pruning" }
        var serverPerPhase: Bool { true }

        func serverArguments(treated: Bool) -> [String] { treated ? ["--retention-days", "1"] : [] }

        func beside(port: UInt16, until deadline: UInt64) -> Double { 0 }

        func afterLoad(port: UInt16, treated: Bool, beside: Double?) throws -> Double {
            treated ? try prunedTotal(port: port) : 0
        }

        func describe(_ measure: Double, treated: Bool) -> String { String(format: ", %.0f pruned", measure) }

        /// `vigil_events_pruned_total` of the server on `port`.
        func prunedTotal(port: UInt16) throws -> Double {
            let connection = try ServerLoadClient(port: port)
            let answer = try connection.send(method: "GET", path: "/metrics", headers: [], body: Data())
            for line in String(decoding: answer.body, as: UTF8.self).split(separator: "\n")
            where line.hasPrefix("vigil_events_pruned_total ") {
                return Double(line.split(separator: " ").last ?? "") ?? 0
            }
            return 0
        }
    }
}
