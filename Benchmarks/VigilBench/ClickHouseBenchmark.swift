import Foundation
import VigilCommandLine
import VigilServer

/// `vigil-bench clickhouse`: the same ingest load (``ServerBenchmark``'s 8 clients and batches)
/// into `vigil serve` on PostgreSQL, then on PostgreSQL with `--events` on a ClickHouse
/// cluster; then both stores grown to `--rows` events by copying the load's events back in time, day by day (on
/// the ClickHouse side both the shards and its `--db`, whose outlines the issue list reads), and the dashboard's API
/// queries asked of both servers in turn.
enum ClickHouseBenchmark: Command {
    static let name = "clickhouse"
    static let summary = "ingest and dashboard query p95: PostgreSQL alone vs PostgreSQL with the event table on ClickHouse"
    static let usage = """
        usage: vigil-bench clickhouse --postgres URL --postgres-events URL --clickhouse URL [--rows N] [--seconds N]
                                      [--clients N] [--rounds N] [--vigil PATH] [--output FILE]

          --postgres         an empty database for the PostgreSQL-only server
          --postgres-events  another empty database, the metadata of the server with --events
          --clickhouse       clickhouse://HOST:PORT/DATABASE?cluster=NAME[&nodes=…] (as vigil serve --events)
          --rows             events each side is grown to before the queries (default 20000000)
          --rounds           times each dashboard query is asked per round (default 30)
          --clickhouse-pids  the shards' clickhouse-server pids, to read their CPU time per event during the load
        """

    /// The dashboard's reads through the API: the overview, the issues list, hangs by page, slow
    /// requests (p50/p95/p99 with their phases), launch by version, frames, a version comparison
    /// and release health.
    static let pages = ["/api/v1/aggregates/overview", "/api/v1/issues", "/api/v1/aggregates/hangs", "/api/v1/aggregates/network",
                        "/api/v1/aggregates/launch", "/api/v1/aggregates/frames", "/api/v1/compare?base=3.2.0&target=3.2.0",
                        "/api/v1/releases"]
    /// Each page unfiltered and with each of the dashboard's filters. The bench's events are of
    /// one release, OS version and device, so those filters keep every event: what they change
    /// is where the figures come from (roll-ups for a time range or a release; events for an OS
    /// version, a device or, on most pages, a page).
    static let filters = ["", "range=7d", "release=3.2.0", "os=18.1", "device=iPhone14%2C2", "page=HomeViewController"]
    static var queries: [String] {
        pages.flatMap { page in filters.map { $0.isEmpty ? page : page + (page.contains("?") ? "&" : "?") + $0 } }
    }
    /// The request breakdown by version and network type under each filter, timed apart from
    /// ``queries`` (not in the goal's p95): it reads the newest 20,000 requests of the window on
    /// both sides (`request_facts` rows on PostgreSQL, the events' JSON on ClickHouse), so its
    /// cost does not grow with `--rows`.
    static var breakdownQueries: [String] {
        filters.map { "/api/v1/network/breakdown" + ($0.isEmpty ? "" : "?" + $0) }
    }

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["postgres", "postgres-events", "clickhouse", "rows", "seconds", "clients", "rounds", "vigil",
                                   "output", "postgres-data", "clickhouse-pids"]
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
        let clickhousePIDs = (arguments.value("clickhouse-pids") ?? "").split(separator: ",").compactMap { Int32($0) }
        let clickhouseCPU = { clickhousePIDs.reduce(0.0) { $0 + ServerBenchCPU.seconds(of: $1) } }

        // PostgreSQL: the load, then the project's events copied to --rows with their roll-ups.
        var postgresProject = ""
        var copies = 1
        var postgresBaseRows = 0
        var postgresRows = 0
        var postgresGrowSeconds = 0.0
        let postgresSide = try ServerBenchmark.runSide(.postgres(url: postgres), vigil: vigil, work: work, events: events, bodies: bodies,
                                                       seconds: seconds, clients: clients, gzip: true, databasePID: postmaster,
                                                       serveArguments: ["--threads", "8"]) { _, project in
            postgresProject = project.name
            let store = try ServerStore.open(.postgres(url: postgres), connections: 1)
            defer { store.database.close() }
            postgresBaseRows = try postgresCount(store, projectID: project.id)
            copies = postgresBaseRows > 0 ? max(1, Int((Double(targetRows) / Double(postgresBaseRows)).rounded(.up))) : 1
            let start = Date()
            try PostgresSeed.grow(store, projectID: project.id, copies: copies)
            postgresGrowSeconds = Date().timeIntervalSince(start)
            postgresRows = try postgresCount(store, projectID: project.id)
            log(String(format: "clickhouse: postgres grown to %d events (%d copies) in %.0f s", postgresRows, copies, postgresGrowSeconds))
        }

        // ClickHouse: the same load, copied to --rows the same way; then both servers asked the same queries in turn.
        var comparison: [String: Any] = [:]
        var clickhouseBaseRows = 0
        var clickhouseCopies = 1
        var clickhouseRows = 0
        var clickhouseGrowSeconds = 0.0
        var clickhouseMainRows = 0
        var clickhouseMainGrowSeconds = 0.0
        var spoolDrainSeconds = 0.0
        var clickhouseLoadCPU: Double?
        let spool = work.appendingPathComponent("events-spool").path
        let clickhouseCPUStart = clickhouseCPU()
        let clickhouseSide = try ServerBenchmark.runSide(.postgres(url: postgresEvents), vigil: vigil, work: work, events: events,
                                                         bodies: bodies, seconds: seconds, clients: clients, gzip: true,
                                                         databasePID: postmaster,
                                                         serveArguments: ["--threads", "8", "--events", clickhouseURL, "--events-spool", spool]) { port, project in
            let drainStart = Date()
            while try metric("vigil_clickhouse_spool_batches", port: port) > 0, Date().timeIntervalSince(drainStart) < 300 {
                Thread.sleep(forTimeInterval: 0.2)
            }
            spoolDrainSeconds = Date().timeIntervalSince(drainStart)
            // The shards' CPU from the server's start to its spool's drain: schema checks,
            // inserts, the views and the merges that ran meanwhile.
            if !clickhousePIDs.isEmpty { clickhouseLoadCPU = clickhouseCPU() - clickhouseCPUStart }
            let cluster = try ClickHouseCluster(location)
            clickhouseBaseRows = try count(cluster)
            log("clickhouse: \(clickhouseBaseRows) rows after ingest (spool drained in \(String(format: "%.1f", spoolDrainSeconds)) s)"
                + (clickhouseLoadCPU.map { String(format: "; shards' CPU %.1f µs/event", $0 * 1e6 / Double(max(clickhouseBaseRows, 1))) } ?? ""))
            // Copies enough for --rows on this side too (its load may have stored fewer events).
            clickhouseCopies = clickhouseBaseRows > 0 ? max(1, Int((Double(targetRows) / Double(clickhouseBaseRows)).rounded(.up))) : 1
            let start = Date()
            try growClickHouse(cluster, copies: clickhouseCopies)
            clickhouseGrowSeconds = Date().timeIntervalSince(start)
            clickhouseRows = try count(cluster)
            log(String(format: "clickhouse: grown to %d rows in %.0f s", clickhouseRows, clickhouseGrowSeconds))
            // Its --db grown the same way: the issue list (and its counts under a filter) reads
            // --db whatever the event store, so both sides must hold as many events there.
            let mainStart = Date()
            let main = try ServerStore.open(.postgres(url: postgresEvents), connections: 1)
            defer { main.database.close() }
            try PostgresSeed.grow(main, projectID: project.id, copies: clickhouseCopies)
            clickhouseMainGrowSeconds = Date().timeIntervalSince(mainStart)
            clickhouseMainRows = try postgresCount(main, projectID: project.id)
            log(String(format: "clickhouse: its --db grown to %d events in %.0f s", clickhouseMainRows, clickhouseMainGrowSeconds))

            // A second server on the PostgreSQL side's database, only answering (no workers).
            let postgresPort = try ServerBenchmark.freePort()
            let reader = Process()
            reader.executableURL = URL(fileURLWithPath: vigil)
            reader.arguments = ["serve", "--db", postgres, "--port", String(postgresPort), "--admin-token", "bench", "--rate-limit", "0",
                                "--workers", "0", "--threads", "8", "--spool-dir", work.appendingPathComponent("spool-reader").path]
            reader.standardOutput = FileHandle.nullDevice
            reader.standardError = FileHandle.nullDevice
            try reader.run()
            defer {
                if reader.isRunning { reader.terminate() }
                reader.waitUntilExit()
            }
            try ServerBenchmark.waitForHealth(port: postgresPort)
            comparison = try timeSideBySide(postgres: (postgresPort, postgresProject), clickhouse: (port, project.name),
                                            queries: queries, rounds: rounds)
            comparison["breakdown"] = try timeSideBySide(postgres: (postgresPort, postgresProject), clickhouse: (port, project.name),
                                                         queries: breakdownQueries, rounds: rounds)
        }
        let postgresP95 = comparison["postgresAllP95Ms"] as? Double ?? 0
        let clickhouseP95 = comparison["clickhouseAllP95Ms"] as? Double ?? 0
        let result: [String: Any] = [
            "suite": "clickhouse",
            "config": ["seconds": seconds, "clients": clients, "batch": 100, "rounds": rounds, "targetRows": targetRows,
                       "cores": ProcessInfo.processInfo.activeProcessorCount, "clickhouse": location.description,
                       "pages": pages, "filters": filters, "breakdownQueries": breakdownQueries] as [String: Any],
            "ingest": ["postgres": try ServerBenchmark.dictionary(postgresSide),
                       "postgresWithClickHouse": try ServerBenchmark.dictionary(clickhouseSide),
                       "ratioEventsPerSecond": clickhouseSide.eventsPerSecond / max(postgresSide.eventsPerSecond, 1),
                       "spoolDrainSecondsAfterLoad": spoolDrainSeconds,
                       "clickhouseServersCPUMicrosecondsPerEvent": clickhouseLoadCPU.map { $0 * 1e6 / Double(max(clickhouseBaseRows, 1)) } as Any],
            "seed": ["postgresCopies": copies, "clickhouseCopies": clickhouseCopies, "postgresBaseRows": postgresBaseRows, "postgresRows": postgresRows,
                     "postgresGrowSeconds": postgresGrowSeconds, "clickhouseBaseRows": clickhouseBaseRows,
                     "clickhouseRows": clickhouseRows, "clickhouseGrowSeconds": clickhouseGrowSeconds,
                     "clickhouseMainDatabaseRows": clickhouseMainRows, "clickhouseMainDatabaseGrowSeconds": clickhouseMainGrowSeconds],
            "queries": comparison,
            "goals": ["queryP95SpeedupOverPostgres": 10, "ingestNotBelowPostgres": 1.0],
            "met": ["queryP95SpeedupOverPostgres": postgresP95 / max(clickhouseP95, 0.001) >= 10,
                    "ingestNotBelowPostgres": clickhouseSide.eventsPerSecond >= postgresSide.eventsPerSecond],
        ]
        let data = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: output).deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: output))
        log("clickhouse: wrote \(output)")
        return 0
    }

    static func postgresCount(_ store: ServerStore, projectID: Int64) throws -> Int {
        try store.database.read { try $0.scalar("SELECT COUNT(*) FROM apm_event WHERE project_id = ?", [.integer(projectID)]).int ?? 0 }
    }

    /// Every shard's rows copied `copies − 1` times into itself, copy c with a new id and its
    /// times c days earlier (as ``PostgresSeed/grow(_:projectID:copies:)`` does): the
    /// materialized views fill the roll-ups from the copies as from any insert.
    static func growClickHouse(_ cluster: ClickHouseCluster, copies: Int) throws {
        guard copies > 1 else { return }
        for shard in cluster.shards {
            let names = try shard.rows("""
                SELECT name FROM system.columns WHERE database = '\(cluster.location.database)' AND table = 'apm_event_local'
                """).compactMap { $0.first ?? nil }
            // One insert per copy: a copy is as large as the shard's load, a block the views
            // group in memory (all copies in one ARRAY JOIN made blocks of millions of rows).
            for copy in 1..<copies {
                let shifted: [String: String] = [
                    "id": "concat(id, '.c\(copy)')", "occurred_at": "occurred_at - \(copy * 86_400_000)",
                    "received_at": "received_at - \(copy * 86_400_000)", "day": "day - \(copy)", "batch_id": "batch_id + \(copy)",
                ]
                let select = names.map { shifted[$0] ?? $0 }.joined(separator: ", ")
                try shard.execute("""
                    INSERT INTO \(cluster.localTable) (\(names.joined(separator: ", ")))
                    SELECT \(select) FROM \(cluster.localTable) WHERE position(id, '.c') = 0
                    """)
            }
        }
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

    /// Each of `queries` asked of both servers in turn (PostgreSQL, then ClickHouse), `rounds` times after
    /// one unmeasured ask: p50/p95 per query and side, and p95 over all queries, unfiltered
    /// queries and filtered ones. A query a server refuses is recorded with its status, not timed.
    static func timeSideBySide(postgres: (port: UInt16, project: String), clickhouse: (port: UInt16, project: String),
                               queries: [String], rounds: Int) throws -> [String: Any] {
        let clients = [try ServerLoadClient(port: postgres.port), try ServerLoadClient(port: clickhouse.port)]
        let projects = [postgres.project, clickhouse.project]
        var all: [[Double]] = [[], []]
        var unfiltered: [[Double]] = [[], []]
        var filtered: [[Double]] = [[], []]
        var perQuery: [String: Any] = [:]
        func at(_ q: Double, _ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
        }
        for path in queries {
            var times: [[Double]] = [[], []]
            var refused: [String] = []
            for round in 0...rounds {
                for side in 0..<2 {
                    let target = path + (path.contains("?") ? "&" : "?") + "project=" + projects[side]
                    let start = DispatchTime.now().uptimeNanoseconds
                    let answer = try clients[side].send(method: "GET", path: target, headers: [("Authorization", "Bearer bench")], body: Data())
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                    if answer.status != 200 {
                        if round == 0 { refused.append("\(side == 0 ? "postgres" : "clickhouse") \(answer.status): "
                                                       + String(decoding: answer.body.prefix(200), as: UTF8.self)) }
                    } else if round > 0 {
                        times[side].append(ms)
                    }
                }
            }
            guard refused.isEmpty else {
                perQuery[path] = ["refused": refused]
                log("clickhouse: \(path) refused: \(refused)")
                continue
            }
            let isFiltered = filters.dropFirst().contains { path.hasSuffix($0) }
            for side in 0..<2 {
                all[side] += times[side]
                if isFiltered { filtered[side] += times[side] } else { unfiltered[side] += times[side] }
            }
            let ratio = at(0.95, times[0]) / max(at(0.95, times[1]), 0.001)
            perQuery[path] = ["postgresP50Ms": at(0.5, times[0]), "postgresP95Ms": at(0.95, times[0]),
                              "clickhouseP50Ms": at(0.5, times[1]), "clickhouseP95Ms": at(0.95, times[1]),
                              "p95Ratio": ratio]
            log(String(format: "clickhouse: %@ p95 postgres %.1f ms, clickhouse %.1f ms (%.1f×)", path,
                       at(0.95, times[0]), at(0.95, times[1]), ratio))
        }
        return ["perQuery": perQuery,
                "postgresAllP95Ms": at(0.95, all[0]), "clickhouseAllP95Ms": at(0.95, all[1]),
                "allP95Ratio": at(0.95, all[0]) / max(at(0.95, all[1]), 0.001),
                "postgresUnfilteredP95Ms": at(0.95, unfiltered[0]), "clickhouseUnfilteredP95Ms": at(0.95, unfiltered[1]),
                "postgresFilteredP95Ms": at(0.95, filtered[0]), "clickhouseFilteredP95Ms": at(0.95, filtered[1]),
                "filteredP95Ratio": at(0.95, filtered[0]) / max(at(0.95, filtered[1]), 0.001)]
    }

    static func log(_ text: String) { ServerBenchmark.log(text) }
}
