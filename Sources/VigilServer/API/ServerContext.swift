import Foundation
import VigilCore

/// The parts every route handler shares: the store and the services around it.
///
/// Threading: immutable after start; every member is safe to share.
public final class ServerContext: Sendable {
    /// What the server was started with.
    public let options: ServerOptions
    /// The database.
    public let store: ServerStore
    /// Ingest keys, the admin token and sessions.
    public let authenticator: Authenticator
    /// Per-key request budget.
    public let rateLimiter: RateLimiter
    /// Turns event bodies into rows.
    public let ingestor: EventIngestor
    /// The processing workers.
    public let processor: EventProcessor
    /// Opened SymCaches shared by the workers.
    public let symbolTables: SymbolTableCache
    /// Counters for `/metrics`.
    public let metrics: ServerMetrics
    /// Aggregate views over the roll-ups.
    public let insights: Insights
    /// Where roll-ups are read: the main database's tables, or the event table on ClickHouse.
    public let rollups: any RollupSource
    /// Delivers events to ClickHouse, with `--events`.
    public let eventSink: ClickHouseEventSink?
    /// Builds and opens SymCaches, when plugged in.
    public let symbolication: (any SymbolicationEngine)?
    /// Reads crash-report files, when plugged in.
    public let reportImporter: (any CrashReportImporter)?
    /// Wall and monotonic time.
    public let clock: any VigilClock
    /// Checks the alert rules.
    public let alertEvaluator: AlertEvaluator
    /// Delivers the alert outbox.
    public let webhookDeliverer: WebhookDeliverer

    init(options: ServerOptions, store: ServerStore, authenticator: Authenticator, rateLimiter: RateLimiter,
         ingestor: EventIngestor, processor: EventProcessor, symbolTables: SymbolTableCache, metrics: ServerMetrics,
         symbolication: (any SymbolicationEngine)?, reportImporter: (any CrashReportImporter)?, clock: any VigilClock,
         alertEvaluator: AlertEvaluator, webhookDeliverer: WebhookDeliverer,
         rollups: (any RollupSource)? = nil, eventSink: ClickHouseEventSink? = nil) {
        self.options = options
        self.store = store
        self.authenticator = authenticator
        self.rateLimiter = rateLimiter
        self.ingestor = ingestor
        self.processor = processor
        self.symbolTables = symbolTables
        self.metrics = metrics
        self.rollups = rollups ?? store
        self.eventSink = eventSink
        self.insights = Insights(store: store, rollups: rollups ?? store)
        self.symbolication = symbolication
        self.reportImporter = reportImporter
        self.clock = clock
        self.alertEvaluator = alertEvaluator
        self.webhookDeliverer = webhookDeliverer
    }

    /// The project a request names with `?project=` (the default project otherwise); 404 when unknown.
    public func project(for request: HTTPRequest) throws -> Project {
        let name = request.query["project"].flatMap { $0.isEmpty ? nil : $0 } ?? options.defaultProject
        guard let project = try store.project(named: name) else {
            throw HTTPError.notFound("no project named \"\(name.prefix(100))\"; `vigil projects create NAME` makes one")
        }
        return project
    }

    /// Flame graphs from stored stacks, symbolicated through ``symbolTables``.
    public var stackProfiler: StackProfiler { StackProfiler(store: store, symbolTables: symbolTables) }

    /// The SHA-256 of ``ServerOptions/metricsToken``, when one was given.
    private var metricsTokenHash: String? { options.metricsToken.map(SecretToken.hash) }

    /// Checks the ingest key when a request's headers arrive (``HTTPRoute/Authorizer``): the
    /// key's project, or 401/429 before the body is read.
    var ingestKeyCheck: HTTPRoute.Authorizer {
        { [self] request in try requireIngestKey(request) }
    }

    /// Checks the admin token or session when a request's headers arrive: 401 before the body is read.
    var adminCheck: HTTPRoute.Authorizer {
        { [self] request in
            try requireAdmin(request)
            return nil
        }
    }

    /// With `--metrics-token`, checks it (or the admin token) when the headers arrive; nil without.
    var metricsCheck: HTTPRoute.Authorizer? {
        guard let expected = metricsTokenHash else { return nil }
        return { [self] request in
            if let token = request.bearerToken,
               SecretToken.constantTimeEqual(SecretToken.hash(token), expected) || authenticator.isAdminToken(token) {
                return nil
            }
            throw HTTPError.unauthorized("/metrics needs the metrics token: Authorization: Bearer <metrics token>")
        }
    }

    /// The project of the request's ingest key: the one its authorizer found when the headers
    /// arrived, or (a request built without the server, in tests) checked now.
    public func ingestProject(_ request: HTTPRequest) throws -> Project {
        if let project = request.authorization as? Project { return project }
        return try requireIngestKey(request)
    }

    /// Throws 401 unless the request carries the admin token or a dashboard session.
    public func requireAdmin(_ request: HTTPRequest) throws {
        guard authenticator.isAdmin(request) else {
            throw HTTPError.unauthorized("this endpoint needs the admin token: Authorization: Bearer <admin token>")
        }
    }

    /// The project of the request's ingest key, after the rate limit; 401 or 429 otherwise.
    public func requireIngestKey(_ request: HTTPRequest) throws -> Project {
        guard let key = Authenticator.ingestKey(of: request) else {
            throw HTTPError.unauthorized("missing ingest key: send Authorization: Bearer <key> or X-Vigil-Key: <key>")
        }
        if let wait = rateLimiter.take(SecretToken.hash(key)) {
            metrics.recordRateLimited()
            throw HTTPError(status: 429, code: "rate_limited",
                            reason: "more than \(Int(rateLimiter.perSecond)) requests per second for this key; retry in \(wait) s",
                            headers: [("Retry-After", String(wait))])
        }
        guard let project = try authenticator.project(forIngestKey: key) else {
            throw HTTPError.unauthorized("unknown ingest key")
        }
        return project
    }

    /// The request's ``DashboardFilter``; 400 `bad_filter` naming the parameter when it cannot be read.
    public func dashboardFilter(_ request: HTTPRequest, defaultRange: DashboardFilter.TimeRange) throws -> DashboardFilter {
        do {
            return try DashboardFilter(query: request.query, defaultRange: defaultRange)
        } catch {
            throw HTTPError.badRequest("\(error)", code: "bad_filter")
        }
    }

    /// The request breakdown by version and network type over the main database's request
    /// facts or, with `--events`, over the request events on ClickHouse.
    public var networkBreakdown: NetworkBreakdown {
        NetworkBreakdown(store: store, events: rollups as? ClickHouseEventStore)
    }
}
