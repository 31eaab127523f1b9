import Foundation
import VigilCommandLine
import VigilServer

/// `vigil serve`: the ingest API, the processing workers and the dashboard in one process.
enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "run the server: ingest API, processing and dashboard"
    static let usage = """
        usage: vigil serve [--db sqlite:PATH | --db postgres://USER@HOST:PORT/DB] [--bind ADDR] [--port N]
                           [--admin-token TOKEN] [--reset-admin-token] [--threads N] [--handler-nice N] [--workers N]
                           [--connections N]
                           [--rate-limit N] [--rate-burst N] [--max-events-bytes N] [--max-events-decoded-bytes N]
                           [--max-symbols-bytes N] [--spool-dir DIR] [--decoder tape|foundation] [--process-at-ingest on|off]
                           [--metrics-token TOKEN] [--connections-per-address N] [--header-timeout SECONDS]
                           [--alerts on|off] [--alert-interval SECONDS] [--alert-timeout SECONDS]
                           [--alert-retry-base SECONDS] [--alert-retry-cap SECONDS] [--alert-max-attempts N]
                           [--retention-days N] [--alert-retention-days N] [--retention-batch N]
                           [--retention-pause-factor X] [--events clickhouse://HOST:PORT/DATABASE?cluster=NAME]
                           [--events-spool DIR] [--exit-after SECONDS]

          --db                 where the data lives (default sqlite:.vigil/vigil.sqlite); several servers may share
                               one PostgreSQL database
          --bind               address to listen on (default 127.0.0.1: only this machine)
          --port               TCP port (default 8750; 0 picks a free one)
          --admin-token        the token for the dashboard, queries, symbols and config (or $VIGIL_ADMIN_TOKEN);
                               without it, one is generated at first start, printed once and stored hashed
          --reset-admin-token  replace the stored admin token with a new one, printed now; ends every dashboard session
          --threads            HTTP threads (default 8)
          --handler-nice       nice value of the HTTP threads while they decode and analyze (default 5; 0 = as
                               started), so the commit thread and the database are never queued behind them
          --workers            processing threads (default 2 on SQLite, 4 on PostgreSQL; 0 = another server processes)
          --process-at-ingest  with workers, process posted events as they are stored (default on; off: the
                               workers claim them from the database)
          --rate-limit         requests per second per ingest key (default 500; 0 = none), --rate-burst (default 1000)
          --max-events-bytes   events body limit as sent (default 5000000), decoded (default 50000000)
          --max-symbols-bytes  symbols upload limit, as sent and decoded (default 2000000000)
          --metrics-token      token /metrics then needs (Authorization: Bearer; or $VIGIL_METRICS_TOKEN; the admin
                               token works too); without it /metrics is open to whoever reaches the port
          --connections-per-address  most connections one client address may hold (default 64; 0 = no limit)
          --header-timeout     seconds a request's headers may take in all (default 20; 0 = only the idle timeout)
          --events             also keep every event in a ClickHouse cluster and read the dashboard's figures there:
                               clickhouse://HOST:PORT/DATABASE?cluster=NAME[&user=U][&password=P][&nodes=H:P,H:P]
                               [&replicated=1] (HTTP interface; nodes: each shard's HTTP address, in shard order,
                               a shard's replicas joined by | with replicated=1: Replicated tables on ZooKeeper)
          --events-spool       where batches wait until ClickHouse confirms them (default .vigil/events-spool)
          --alerts             evaluate alert rules and deliver webhooks in this process (default on; several
                               servers on one database may all do it)
          --alert-interval     seconds between checks of the threshold rules (default 15)
          --alert-timeout      seconds a webhook receiver has to answer (default 10)
          --alert-retry-base   first retry delay in seconds, doubling per attempt (default 10), up to
                               --alert-retry-cap (default 3600); --alert-max-attempts attempts in all (default 20)
          --retention-days     keep raw events N days (by their own time; fractions allowed) and prune older ones in
                               the background in small batches; roll-ups and issues stay (default: keep forever)
          --alert-retention-days  keep delivered, failed and dropped alerts and delivery-log rows N days, then prune
                               them the same way (default: --retention-days; without either, keep forever)
          --retention-batch    rows pruning deletes per transaction (default 200; 1…100000)
          --retention-pause-factor  after each batch pruning waits at least X times as long as the batch took (and at
                               least 50 ms), so it holds the database at most 1/(1+X) of the time (default 4; 0…1000)
          --exit-after         stop after SECONDS (tests and demos)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["db", "bind", "port", "admin-token", "threads", "handler-nice", "workers", "connections", "rate-limit",
                                   "rate-burst", "max-events-bytes", "max-events-decoded-bytes", "max-symbols-bytes",
                                   "spool-dir", "decoder", "process-at-ingest", "exit-after", "metrics-token",
                                   "connections-per-address", "header-timeout", "alerts", "alert-interval", "alert-timeout",
                                   "alert-retry-base", "alert-retry-cap", "alert-max-attempts", "retention-days",
                                   "alert-retention-days", "retention-batch", "retention-pause-factor",
                                   "events", "events-spool"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["reset-admin-token"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument \"\(arguments.positional[0])\"") }

        var options = ServerOptions(database: try database(arguments))
        options.http = HTTPServerConfiguration(bindAddress: arguments.value("bind") ?? "127.0.0.1",
                                               port: try arguments.number("port", default: UInt16(8750)),
                                               threads: try arguments.number("threads", default: 8),
                                               handlerNice: try arguments.number("handler-nice", default: Int32(5)),
                                               connectionsPerAddress: try arguments.number("connections-per-address", default: 64),
                                               headerTimeoutSeconds: try arguments.number("header-timeout", default: 20.0))
        options.adminToken = arguments.value("admin-token") ?? ProcessInfo.processInfo.environment["VIGIL_ADMIN_TOKEN"]
        options.metricsToken = (arguments.value("metrics-token") ?? ProcessInfo.processInfo.environment["VIGIL_METRICS_TOKEN"])
            .flatMap { $0.isEmpty ? nil : $0 }
        // PostgreSQL workers overlap their round trips; on SQLite one writer serializes them anyway.
        let defaultWorkers: Int
        if case .postgres = options.database { defaultWorkers = 4 } else { defaultWorkers = 2 }
        options.workers = try arguments.number("workers", default: defaultWorkers)
        options.connections = try arguments.number("connections", default: 12)
        options.rateLimitPerSecond = try arguments.number("rate-limit", default: 500.0)
        options.rateLimitBurst = try arguments.number("rate-burst", default: max(1, options.rateLimitPerSecond * 2))
        options.eventsMaxBytes = try arguments.number("max-events-bytes", default: options.eventsMaxBytes)
        options.eventsMaxDecodedBytes = try arguments.number("max-events-decoded-bytes", default: options.eventsMaxDecodedBytes)
        options.symbolsMaxBytes = try arguments.number("max-symbols-bytes", default: options.symbolsMaxBytes)
        if let spool = arguments.value("spool-dir") { options.spoolDirectory = spool }
        if let events = arguments.value("events") {
            do { options.events = try ClickHouseLocation(events) } catch { throw UsageError("\(error)") }
        }
        if let spool = arguments.value("events-spool") { options.eventsSpoolDirectory = spool }
        if let decoder = arguments.value("decoder") {
            guard let parsed = EventIngestor.Decoder(rawValue: decoder) else { throw UsageError("--decoder: expected tape or foundation") }
            options.decoder = parsed
        }
        switch arguments.value("process-at-ingest") {
        case nil, "on": options.processAtIngest = true
        case "off": options.processAtIngest = false
        case let other?: throw UsageError("--process-at-ingest: expected on or off, not \"\(other)\"")
        }
        switch arguments.value("alerts") {
        case nil, "on": options.alertWorkers = true
        case "off": options.alertWorkers = false
        case let other?: throw UsageError("--alerts: expected on or off, not \"\(other)\"")
        }
        options.alertIntervalSeconds = try arguments.number("alert-interval", default: options.alertIntervalSeconds)
        options.alertTimeoutSeconds = try arguments.number("alert-timeout", default: options.alertTimeoutSeconds)
        let retry = AlertRetrySchedule(baseSeconds: try arguments.number("alert-retry-base", default: options.alertRetry.baseSeconds),
                                       capSeconds: try arguments.number("alert-retry-cap", default: options.alertRetry.capSeconds),
                                       maxAttempts: try arguments.number("alert-max-attempts", default: options.alertRetry.maxAttempts))
        guard options.alertIntervalSeconds > 0, options.alertTimeoutSeconds > 0, retry.baseSeconds >= 0 else {
            throw UsageError("--alert-interval and --alert-timeout must be > 0, --alert-retry-base ≥ 0")
        }
        options.alertRetry = retry
        if let text = arguments.value("retention-days") {
            guard let days = Double(text), days > 0, days.isFinite else {
                throw UsageError("--retention-days: \"\(text.prefix(40))\" is not a positive number of days")
            }
            options.retentionDays = days
        }
        if let text = arguments.value("alert-retention-days") {
            guard let days = Double(text), days > 0, days.isFinite else {
                throw UsageError("--alert-retention-days: \"\(text.prefix(40))\" is not a positive number of days")
            }
            options.alertRetentionDays = days
        }
        if let text = arguments.value("retention-batch") {
            guard let rows = Int(text), rows >= 1, rows <= 100_000 else {
                throw UsageError("--retention-batch: \"\(text.prefix(40))\" is not a number of rows from 1 to 100000")
            }
            options.retentionBatchRows = rows
        }
        if let text = arguments.value("retention-pause-factor") {
            guard let factor = Double(text), factor.isFinite, factor >= 0, factor <= 1000 else {
                throw UsageError("--retention-pause-factor: \"\(text.prefix(40))\" is not a number from 0 to 1000")
            }
            options.retentionPauseFactor = factor
        }
        let exitAfter: Double? = try arguments.value("exit-after").map { text in
            guard let seconds = Double(text), seconds >= 0 else { throw UsageError("--exit-after: \"\(text)\" is not a number of seconds") }
            return seconds
        }
        if arguments.flag("reset-admin-token") {
            guard options.adminToken == nil else { throw UsageError("--reset-admin-token and --admin-token exclude each other") }
            let store = try ServerStore.open(options.database, connections: 2)
            let token = try ServerApplication.resetAdminToken(store: store)
            store.database.close()
            CommandDispatcher.writeStandardOutput("admin token (replaces the old one and ends its sessions; shown only now): \(token)\n")
        }
        return try serve(options, exitAfter: exitAfter)
    }

    /// The `--db` value, defaulting to an SQLite file under `./.vigil/`.
    static func database(_ arguments: Arguments) throws -> DatabaseLocation {
        do {
            return try DatabaseLocation(arguments.value("db") ?? "sqlite:.vigil/vigil.sqlite")
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// Starts the server, prints where it listens and the first-start secrets, and serves until
    /// SIGINT/SIGTERM or `exitAfter` seconds.
    static func serve(_ options: ServerOptions, exitAfter: Double?, extraRoutes: [HTTPRoute] = [],
                      onStart: (ServerApplication) throws -> Void = { _ in }) throws -> Int32 {
        try FileManager.default.createDirectory(atPath: options.spoolDirectory, withIntermediateDirectories: true)
        let app = try ServerApplication.start(options, symbolication: ServerEngines.symbolication(scratch: options.spoolDirectory),
                                              reportImporter: ServerEngines.reportImporter,
                                              crashAnalyzer: ServerEngines.crashAnalyzer, extraRoutes: extraRoutes,
                                              log: { CommandDispatcher.writeStandardError("vigil serve: \($0)") })
        let host = options.http.bindAddress.contains(":") ? "[\(options.http.bindAddress)]" : options.http.bindAddress
        var banner = "vigil serve: listening on http://\(host):\(app.port) (\(options.database)), "
            + "\(options.workers) processing workers\n"
        if let token = app.firstStart.adminToken {
            banner += "admin token (shown only now; stored hashed): \(token)\n"
            banner += "dashboard: http://\(host):\(app.port)/login?token=\(token)\n"
        } else {
            banner += "dashboard: http://\(host):\(app.port)/ (log in with the admin token)\n"
        }
        if let key = app.firstStart.defaultProjectKey {
            banner += "project \"\(app.firstStart.defaultProject.name)\" created; ingest key (shown only now): \(key)\n"
        }
        CommandDispatcher.writeStandardOutput(banner)
        do {
            try onStart(app)
        } catch {
            app.stop()
            throw error
        }
        waitForTermination(seconds: exitAfter)
        app.stop()
        CommandDispatcher.writeStandardOutput("vigil serve: stopped\n")
        return 0
    }

    /// Blocks until SIGINT or SIGTERM arrives, or `seconds` pass.
    static func waitForTermination(seconds: Double?) {
        let done = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }
        if let seconds {
            _ = done.wait(timeout: .now() + seconds)
        } else {
            done.wait()
        }
        for source in sources { source.cancel() }
    }
}
