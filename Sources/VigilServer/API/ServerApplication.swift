import Foundation
import VigilCore

/// A running Vigil server: the database (migrated), the HTTP API and dashboard, and the
/// processing workers. What `vigil serve` and `vigil demo` start.
///
/// Threading: ``stop()`` may be called from any thread; it stops HTTP first, then the workers.
public final class ServerApplication: Sendable {
    /// The shared services.
    public let context: ServerContext
    /// The HTTP server.
    public let http: HTTPServer
    /// The background pruning of old events (`--retention-days`) and of finished alerts and
    /// delivery-log rows (`--alert-retention-days`, else the same days).
    public let retention: RetentionPruner?
    /// Secrets created by this start, to show once: the admin token (when generated now) and
    /// the default project's ingest key (when the project was created now).
    public let firstStart: FirstStartSecrets

    /// What a first start created.
    public struct FirstStartSecrets: Sendable {
        /// The admin token, when this start generated it.
        public var adminToken: String?
        /// The default project's ingest key, when this start created the project.
        public var defaultProjectKey: String?
        /// The default project.
        public var defaultProject: Project
    }

    /// The port the server listens on.
    public var port: UInt16 { http.port }

    /// Opens the database, prepares secrets and the default project, starts HTTP and the workers.
    ///
    /// `symbolication` and `reportImporter` plug in the engines from `VigilSymbols` and
    /// `VigilReports`; `extraRoutes` adds endpoints (the demo's).
    public static func start(_ options: ServerOptions, symbolication: (any SymbolicationEngine)? = nil,
                             reportImporter: (any CrashReportImporter)? = nil, crashAnalyzer: (any CrashAnalyzer)? = nil,
                             clock: any VigilClock = SystemClock(), extraRoutes: [HTTPRoute] = [],
                             log: @escaping @Sendable (String) -> Void = { _ in }) throws -> ServerApplication {
        let store = try ServerStore.open(options.database, connections: options.connections)
        do {
            return try ServerApplication(options: options, store: store, symbolication: symbolication,
                                         reportImporter: reportImporter, crashAnalyzer: crashAnalyzer, clock: clock,
                                         extraRoutes: extraRoutes, log: log)
        } catch {
            store.database.close()
            throw error
        }
    }

    private init(options: ServerOptions, store: ServerStore, symbolication: (any SymbolicationEngine)?,
                 reportImporter: (any CrashReportImporter)?, crashAnalyzer: (any CrashAnalyzer)?, clock: any VigilClock,
                 extraRoutes: [HTTPRoute], log: @escaping @Sendable (String) -> Void) throws {
        let (adminHash, generatedToken) = try Self.adminTokenHash(options: options, store: store)
        let sessionSecret = SecretToken.generate(prefix: "")
        _ = try store.insertSettingIfAbsent("session_secret", sessionSecret)
        let secret = try store.setting("session_secret") ?? sessionSecret
        let (project, key) = try store.ensureProject(name: options.defaultProject, now: clock.wallNow())
        firstStart = FirstStartSecrets(adminToken: generatedToken, defaultProjectKey: key, defaultProject: project)

        let metrics = ServerMetrics()
        let symbolTables = SymbolTableCache(engine: symbolication)
        var eventSink: ClickHouseEventSink?
        var rollups: (any RollupSource)?
        if let location = options.events {
            let cluster = try ClickHouseCluster(location)
            try cluster.createSchema(issueLinks: { try store.issueLinkRows() })
            let sink = try ClickHouseEventSink(cluster: cluster, spool: try EventSpool(directory: options.eventsSpoolDirectory),
                                               flushInterval: location.flushInterval, log: log)
            eventSink = sink
            rollups = ClickHouseEventStore(cluster: cluster)
        }
        // New-issue and regression alerts are written in the processing transaction that decides them.
        // With --events, each processed-ingest group is spooled while it commits.
        let processor = EventProcessor(store: store, symbols: symbolTables, crashAnalyzer: crashAnalyzer, policy: InAppPolicy(),
                                       metrics: metrics, clock: clock, batchSize: 250, log: log,
                                       transitionHandler: { transitions, connection in
                                           try AlertEvaluator.fire(for: transitions, on: connection)
                                       },
                                       rows: options.events == nil ? .whole : .outlineUnlessRead,
                                       rollups: options.events == nil ? .all : .readByMainDatabase, journal: eventSink)
        let deliverer = WebhookDeliverer(store: store, clock: clock, schedule: options.alertRetry,
                                         timeoutSeconds: options.alertTimeoutSeconds, log: log)
        let evaluator = AlertEvaluator(store: store, clock: clock, interval: options.alertIntervalSeconds,
                                       onFired: { deliverer.wake() }, log: log)
        context = ServerContext(options: options, store: store,
                                authenticator: Authenticator(store: store, adminTokenHash: adminHash, sessionSecret: secret, clock: clock),
                                rateLimiter: RateLimiter(perSecond: options.rateLimitPerSecond, burst: options.rateLimitBurst, clock: clock),
                                ingestor: EventIngestor(store: store, clock: clock, decoder: options.decoder,
                                                        processor: options.workers > 0 && options.processAtIngest ? processor : nil,
                                                        sink: eventSink, sinkAnalyzer: processor),
                                processor: processor, symbolTables: symbolTables, metrics: metrics,
                                symbolication: symbolication, reportImporter: reportImporter, clock: clock,
                                alertEvaluator: evaluator, webhookDeliverer: deliverer,
                                rollups: rollups, eventSink: eventSink)
        var router = HTTPRouter()
        APIRoutes.install(into: &router, context: context)
        OTLPRoutes.install(into: &router, context: context)
        NetworkRoutes.install(into: &router, context: context)
        ReleaseRoutes.install(into: &router, context: context)
        AlertRoutes.install(into: &router, context: context)
        IssueStateRoutes.install(into: &router, context: context)
        DashboardRoutes.install(into: &router, context: context)
        for route in extraRoutes { router.add(route) }
        let metricsSink = metrics
        http = try HTTPServer(configuration: options.http, router: router) { route, status, seconds in
            metricsSink.recordRequest(route: route, status: status, seconds: seconds)
        }
        if options.workers > 0 { processor.start(workers: options.workers) }
        eventSink?.start()
        if options.alertWorkers {
            deliverer.start(pollSeconds: options.alertPollSeconds)
            evaluator.start()
        }
        let alertDays = options.alertRetentionDays ?? options.retentionDays
        if options.retentionDays != nil || alertDays != nil {
            retention = RetentionPruner(store: store, days: options.retentionDays, alertDays: alertDays,
                                        batchRows: options.retentionBatchRows, pauseSeconds: options.retentionPauseSeconds,
                                        pauseFactor: options.retentionPauseFactor, clock: clock, metrics: metrics, log: log)
        } else {
            retention = nil
        }
        retention?.start()
    }

    /// Stops serving, then stops the workers after their current batch, then closes the database.
    public func stop() {
        http.stop()
        retention?.stop()
        context.eventSink?.stop()
        context.processor.stop()
        context.alertEvaluator.stop()
        context.webhookDeliverer.stop()
        context.store.database.close()
    }

    /// The admin token's hash: from `--admin-token`, from the database, or a new token (returned
    /// so that it can be printed once).
    private static func adminTokenHash(options: ServerOptions, store: ServerStore) throws -> (String, String?) {
        if let token = options.adminToken, !token.isEmpty {
            return (SecretToken.hash(token), nil)
        }
        if let stored = try store.setting("admin_token_hash") { return (stored, nil) }
        let token = SecretToken.generate(prefix: "va_")
        if try store.insertSettingIfAbsent("admin_token_hash", SecretToken.hash(token)) {
            return (SecretToken.hash(token), token)
        }
        // Another server created one at the same moment; it printed its token.
        return (try store.setting("admin_token_hash") ?? SecretToken.hash(token), nil)
    }

    /// Replaces the stored admin token with a new one and returns it (`vigil serve --reset-admin-token`).
    ///
    /// The secret that signs session cookies is replaced in the same transaction: a reset
    /// usually follows a leak, and a session made with the leaked token must end with it.
    /// Servers read both at start, so the change takes effect as each one (re)starts.
    public static func resetAdminToken(store: ServerStore) throws -> String {
        let token = SecretToken.generate(prefix: "va_")
        try store.setSettings(["admin_token_hash": SecretToken.hash(token),
                               "session_secret": SecretToken.generate(prefix: "")])
        return token
    }
}
