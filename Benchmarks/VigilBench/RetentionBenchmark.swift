import Foundation
import VigilCommandLine
import VigilServer

/// `vigil-bench retention`: what pruning old events costs ingest. A real `vigil serve` on a
/// database holding many events older than a day takes the server benchmark's load (8 clients
/// posting gzip batches of 100) in alternating phases: started without `--retention-days`, then
/// with `--retention-days 1`, so that in the second phase the background pruner deletes old rows
/// in batches of 200 while ingest runs. Both phases start a fresh server. The ingest p99 of both
/// is compared. Writes `bench-results/retention.json`.
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
        let valued: Set<String> = ["postgres", "events", "seconds", "rounds", "clients", "vigil", "output", "work-dir"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["postgres-only"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let eventCount = try arguments.number("events", default: 600_000)
        let seconds = try arguments.number("seconds", default: 10.0)
        let rounds = try arguments.number("rounds", default: 2)
        let clients = try arguments.number("clients", default: 8)
        guard eventCount >= 0, seconds > 0, rounds >= 1, clients >= 1, clients <= 64 else {
            throw UsageError("--events ≥ 0, --seconds > 0, --rounds ≥ 1, --clients 1…64")
        }
        let vigil = arguments.value("vigil")
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("vigil").path
        guard FileManager.default.isExecutableFile(atPath: vigil) else { throw UsageError("no vigil binary at \(vigil); pass --vigil") }
        let output = arguments.value("output") ?? "bench-results/retention.json"
        let work = URL(fileURLWithPath: arguments.value("work-dir") ?? NSTemporaryDirectory())
            .appendingPathComponent("vigil-bench-retention-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let events = try ServerBenchEvents(batchSize: 100, seed: 42)
        let perClient = Int((seconds * Double(rounds) * 2 * 40).rounded(.up))
        let bodies = PreparedBodies(events: events, clients: clients, perClient: perClient, spacing: 1.0 / 40, gzip: true)
        let setup = ScrapeBenchmark.Setup(vigil: vigil, work: work, events: events, bodies: bodies, eventCount: eventCount,
                                          seconds: seconds, rounds: rounds, clients: clients, scrapers: 1, interval: 0)
        var sides: [String: Any] = [:]
        var met: [String: Bool] = [:]
        var locations: [DatabaseLocation] = []
        if !arguments.flag("postgres-only") { locations.append(.sqlite(path: work.appendingPathComponent("retention.sqlite").path)) }
        if let url = arguments.value("postgres") { locations.append(.postgres(url: url)) }
        guard !locations.isEmpty else { throw UsageError("--postgres-only needs --postgres URL") }
        for location in locations {
            let side = try runSide(location, setup)
            sides[side.database] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(side))
            met["\(side.database)P99Within10Percent"] = side.p99Ratio <= 1.10
        }
        let result: [String: Any] = [
            "suite": "retention",
            "config": ["events": eventCount, "seconds": seconds, "rounds": rounds, "clients": clients, "batch": 100, "gzip": true,
                       "retentionDays": 1, "pruneBatchRows": 200, "prunePauseMsMin": 50, "prunePauseBusyShare": RetentionPruner.busyShare,
                       "cores": ProcessInfo.processInfo.activeProcessorCount] as [String: Any],
            "sides": sides,
            "goals": ["p99RatioWithPruningMax": 1.10],
            "met": met,
        ]
        let data = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: output).deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: output))
        ServerBenchmark.log("retention: wrote \(output)")
        return 0
    }

    static func runSide(_ location: DatabaseLocation, _ setup: ScrapeBenchmark.Setup) throws -> SideResult {
        let label = location.description.hasPrefix("sqlite") ? "sqlite" : "postgres"
        var store = try ServerStore.open(location, connections: 2)
        let (project, key) = try store.createProject(name: "retention-\(UUID().uuidString.prefix(8))")
        let seedStart = Date()
        // One a second from two days ago back: every one older than the retention.
        try ScrapeBenchmark.seed(store, projectID: project.id, count: setup.eventCount, olderThan: 2 * 86_400)
        let seedSeconds = Date().timeIntervalSince(seedStart)
        let before = try store.eventCounts()
        store.database.close()
        ServerBenchmark.log(String(format: "retention: %@: loaded %d events in %.1f s", label, setup.eventCount, seedSeconds))

        let sequences = ScrapeBenchmark.SequenceCounters(clients: setup.clients)
        var phases: [Phase] = []
        var without: [Double] = []
        var with: [Double] = []
        var pruned = 0.0, prunedSeconds = 0.0
        for round in 0..<setup.rounds {
            for pruning in [false, true] {
                let port = try ServerBenchmark.freePort()
                let server = Process()
                server.executableURL = URL(fileURLWithPath: setup.vigil)
                server.arguments = ["serve", "--db", ServerBenchmark.dbArgument(location), "--port", String(port), "--admin-token", "bench",
                                    "--rate-limit", "0", "--threads", "8", "--spool-dir", setup.work.appendingPathComponent("spool").path]
                    + (pruning ? ["--retention-days", "1"] : [])
                server.standardOutput = FileHandle.nullDevice
                server.standardError = FileHandle.nullDevice
                try server.run()
                defer {
                    if server.isRunning { server.terminate() }
                    var status: Int32 = 0
                    waitpid(server.processIdentifier, &status, 0)
                }
                try ServerBenchmark.waitForHealth(port: port)
                let outcome = try ScrapeBenchmark.phase(port: port, key: key, setup: setup, sequences: sequences, scraping: false)
                let deleted = pruning ? try prunedTotal(port: port) : 0
                pruned += deleted
                if pruning { prunedSeconds += outcome.seconds }
                if pruning { with += outcome.latencies } else { without += outcome.latencies }
                phases.append(Phase(pruning: pruning, seconds: outcome.seconds, requests: outcome.latencies.count,
                                    failedRequests: outcome.failures, eventsPerSecond: Double(outcome.events) / outcome.seconds,
                                    prunedEvents: deleted))
                ServerBenchmark.log(String(format: "retention: %@: round %d %@ pruning: %.0f events/s, p99 %.1f ms, %.0f pruned",
                                           label, round + 1, pruning ? "with" : "without", Double(outcome.events) / outcome.seconds,
                                           ScrapeBenchmark.percentile(outcome.latencies, 0.99), deleted))
            }
        }
        store = try ServerStore.open(location, connections: 2)
        let after = try store.eventCounts()
        store.database.close()
        let p99Without = ScrapeBenchmark.percentile(without, 0.99)
        let p99With = ScrapeBenchmark.percentile(with, 0.99)
        let side = SideResult(database: label, storedEventsBefore: before.pending + before.processed + before.reprocess,
                              storedEventsAfter: after.pending + after.processed + after.reprocess, seedSeconds: seedSeconds,
                              phases: phases, p50MsWithout: ScrapeBenchmark.percentile(without, 0.5), p99MsWithout: p99Without,
                              p50MsWith: ScrapeBenchmark.percentile(with, 0.5), p99MsWith: p99With,
                              p99Ratio: p99With / max(p99Without, 0.001), prunedEvents: pruned,
                              prunedPerSecond: pruned / max(prunedSeconds, 0.001))
        ServerBenchmark.log(String(format: "retention: %@: ingest p99 %.1f ms without, %.1f ms with pruning (×%.3f); %.0f events pruned",
                                   label, p99Without, p99With, side.p99Ratio, pruned))
        return side
    }

    /// `vigil_events_pruned_total` of the server on `port`.
    static func prunedTotal(port: UInt16) throws -> Double {
        let connection = try ServerLoadClient(port: port)
        let answer = try connection.send(method: "GET", path: "/metrics", headers: [], body: Data())
        for line in String(decoding: answer.body, as: UTF8.self).split(separator: "\n") where line.hasPrefix("vigil_events_pruned_total ") {
            return Double(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }
}
