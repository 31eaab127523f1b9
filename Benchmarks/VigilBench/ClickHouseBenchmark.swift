import Foundation
import VigilCommandLine
import VigilServer

/// `vigil-bench clickhouse`: the same ingest load (``ServerBenchmark``'s 8 clients and batches)
/// into `vigil serve` on PostgreSQL, then on PostgreSQL with `--events` on a ClickHouse
/// cluster; after each, the dashboard's API queries timed against the loaded server; then the
/// ClickHouse event table grown to `--rows` rows and the queries timed again.
enum ClickHouseBenchmark: Command {
    static let name = "clickhouse"
    static let summary = "ingest and dashboard query p95: PostgreSQL alone vs PostgreSQL with the event table on ClickHouse"
    static let usage = """
        usage: vigil-bench clickhouse --postgres URL --postgres-events URL --clickhouse URL [--rows N] [--seconds N]
                                      [--clients N] [--rounds N] [--vigil PATH] [--output FILE]

          --postgres         an empty database for the PostgreSQL-only server
          --postgres-events  another empty database, the metadata of the server with --events
          --clickhouse       clickhouse://HOST:PORT/DATABASE?cluster=NAME[&nodes=…] (as vigil serve --events)
          --rows             event rows the ClickHouse table is grown to for the second query round (default 20000000)
          --rounds           times each dashboard query is asked per round (default 30)
        """

    /// The dashboard's reads: the overview page's and every metric page's, through the API.
    static let queries = ["/api/v1/aggregates/overview", "/api/v1/aggregates/hangs", "/api/v1/aggregates/network",
                          "/api/v1/aggregates/launch", "/api/v1/aggregates/frames", "/api/v1/compare?base=3.2.0&target=3.2.0",
                          "/api/v1/releases"]

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["postgres", "postgres-events", "clickhouse", "rows", "seconds", "clients", "rounds", "vigil",
                                   "output", "postgres-data"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard let postgres = arguments.value("postgres"), let postgresEvents = arguments.value("postgres-events"),
              let clickhouseURL = arguments.value("clickhouse") else {
            throw UsageError("--postgres, --postgres-events and --clickhouse are required")
        }
        let location = try ClickHouseLocation(clickhouseURL)
        let seconds = try arguments.number("seconds", default: 30.0)
        let clients = try arguments.number("clients", default: 8)
        let rounds = try arguments.number("rounds", default: 30)
        let targetRows = try arguments.number("rows", default: 20_000_000)
        let output = arguments.value("output") ?? "bench-results/clickhouse.json"
        let vigil = arguments.value("vigil")
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("vigil").path
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("vigil-bench-clickhouse-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let events = try ServerBenchEvents(batchSize: 100, seed: 42)
        let perClient = Int((seconds * 40).rounded(.up))
        let bodies = PreparedBodies(events: events, clients: clients, perClient: perClient, spacing: 1.0 / 40, gzip: true)
        let postmaster = arguments.value("postgres-data").flatMap(ServerBenchCPU.postmasterPID(dataDirectory:))

        var postgresQueries: [String: Any] = [:]
        let postgresSide = try ServerBenchmark.runSide(.postgres(url: postgres), vigil: vigil, work: work, events: events, bodies: bodies,
                                                       seconds: seconds, clients: clients, gzip: true, databasePID: postmaster,
                                                       serveArguments: ["--threads", "8"]) { port, project in
            postgresQueries = try timeQueries(port: port, project: project.name, rounds: rounds)
        }
        var small: [String: Any] = [:]
        var large: [String: Any] = [:]
        var rowsAfterIngest = 0
        var rowsGrown = 0
        var growSeconds = 0.0
        var spoolDrainSeconds = 0.0
        let spool = work.appendingPathComponent("events-spool").path
        let clickhouseSide = try ServerBenchmark.runSide(.postgres(url: postgresEvents), vigil: vigil, work: work, events: events,
                                                         bodies: bodies, seconds: seconds, clients: clients, gzip: true,
                                                         databasePID: postmaster,
                                                         serveArguments: ["--threads", "8", "--events", clickhouseURL, "--events-spool", spool]) { port, project in
            let drainStart = Date()
            while try metric("vigil_clickhouse_spool_batches", port: port) > 0, Date().timeIntervalSince(drainStart) < 300 {
                Thread.sleep(forTimeInterval: 0.2)
            }
            spoolDrainSeconds = Date().timeIntervalSince(drainStart)
            let cluster = try ClickHouseCluster(location)
            rowsAfterIngest = try count(cluster)
            log("clickhouse: \(rowsAfterIngest) rows after ingest (spool drained in \(String(format: "%.1f", spoolDrainSeconds)) s)")
            small = try timeQueries(port: port, project: project.name, rounds: rounds)
            // Grow the table: every shard copies its own rows into itself until the total reaches --rows.
            let growStart = Date()
            var total = rowsAfterIngest
            while total > 0 && total < targetRows {
                for shard in cluster.shards.indices {
                    let have = Int(try cluster.shards[shard].rows("SELECT count() FROM \(cluster.localTable)").first?.first??.description ?? "0") ?? 0
                    let want = min(have, Int((Double(targetRows - total) * Double(have) / Double(total)).rounded(.up)))
                    guard want > 0 else { continue }
                    try cluster.shards[shard].execute("INSERT INTO \(cluster.localTable) SELECT * FROM \(cluster.localTable) LIMIT \(want)")
                }
                total = try count(cluster)
                log("clickhouse: \(total) rows")
            }
            growSeconds = Date().timeIntervalSince(growStart)
            rowsGrown = total
            // Let merges settle as a running cluster's would between inserts.
            for node in cluster.shards { try? node.execute("OPTIMIZE TABLE \(cluster.localTable) FINAL") }
            large = try timeQueries(port: port, project: project.name, rounds: rounds)
        }
        let postgresP95 = postgresQueries["allP95Ms"] as? Double ?? 0
        let largeP95 = large["allP95Ms"] as? Double ?? 0
        let result: [String: Any] = [
            "suite": "clickhouse",
            "config": ["seconds": seconds, "clients": clients, "batch": 100, "rounds": rounds, "targetRows": targetRows,
                       "cores": ProcessInfo.processInfo.activeProcessorCount, "clickhouse": location.description,
                       "queries": queries] as [String: Any],
            "ingest": ["postgres": try ServerBenchmark.dictionary(postgresSide),
                       "postgresWithClickHouse": try ServerBenchmark.dictionary(clickhouseSide),
                       "ratioEventsPerSecond": clickhouseSide.eventsPerSecond / max(postgresSide.eventsPerSecond, 1),
                       "spoolDrainSecondsAfterLoad": spoolDrainSeconds],
            "queries": ["postgresRollupTables": postgresQueries,
                        "clickhouseAfterIngest": small.merging(["rows": rowsAfterIngest]) { $1 },
                        "clickhouseGrown": large.merging(["rows": rowsGrown, "growSeconds": growSeconds]) { $1 },
                        "postgresP95OverClickHouseGrownP95": postgresP95 / max(largeP95, 0.001)],
            "goals": ["queryP95SpeedupOverPostgres": 10, "ingestNotBelowPostgres": 1.0],
            "met": ["queryP95SpeedupOverPostgres": postgresP95 / max(largeP95, 0.001) >= 10,
                    "ingestNotBelowPostgres": clickhouseSide.eventsPerSecond >= postgresSide.eventsPerSecond],
        ]
        let data = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: output).deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: output))
        log("clickhouse: wrote \(output)")
        return 0
    }

    static func count(_ cluster: ClickHouseCluster) throws -> Int {
        Int(try cluster.entry.rows("SELECT count() FROM \(cluster.distributedTable)").first?.first??.description ?? "") ?? 0
    }

    static func metric(_ name: String, port: UInt16) throws -> Double {
        let answer = try ServerLoadClient(port: port).send(method: "GET", path: "/metrics", headers: [], body: Data())
        for line in String(decoding: answer.body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }

    /// Each dashboard query `rounds` times (after one unmeasured): p50/p95 per query, and p95 over all.
    static func timeQueries(port: UInt16, project: String, rounds: Int) throws -> [String: Any] {
        let client = try ServerLoadClient(port: port)
        var all: [Double] = []
        var perQuery: [String: Any] = [:]
        for path in queries {
            let target = path + (path.contains("?") ? "&" : "?") + "project=" + project
            var times: [Double] = []
            for round in 0...rounds {
                let start = DispatchTime.now().uptimeNanoseconds
                let answer = try client.send(method: "GET", path: target, headers: [("Authorization", "Bearer bench")], body: Data())
                let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                guard answer.status == 200 else {
                    throw BenchError("\(target) answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                }
                if round > 0 { times.append(ms) }
            }
            times.sort()
            func at(_ q: Double) -> Double { times[min(times.count - 1, Int(Double(times.count - 1) * q))] }
            perQuery[path] = ["p50Ms": at(0.5), "p95Ms": at(0.95)]
            all += times
            log(String(format: "clickhouse: %@ p50 %.2f ms p95 %.2f ms", path, at(0.5), at(0.95)))
        }
        all.sort()
        return ["perQuery": perQuery, "allP95Ms": all[min(all.count - 1, Int(Double(all.count - 1) * 0.95))],
                "allP50Ms": all[min(all.count - 1, Int(Double(all.count - 1) * 0.5))]]
    }

    static func log(_ text: String) { ServerBenchmark.log(text) }
}
