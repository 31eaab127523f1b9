import Foundation
import VigilCore

/// One slice of a request template's traffic: an app version or a network type.
public struct NetworkBreakdownRow: Sendable, Hashable, Codable {
    /// The app version, or the network type (`wifi`, `cellular`, `wired`, `none`, `unknown`).
    public var key: String
    /// Requests in the slice.
    public var requests: Int
    /// Transport errors and 5xx answers (as the roll-ups count errors).
    public var errors: Int
    /// 4xx answers.
    public var clientErrors: Int
    /// ``errors`` per request.
    public var errorRate: Double
    /// Median total time, ms (±1 %).
    public var p50Ms: Double?
    /// 95th percentile of the total time, ms (±1 %).
    public var p95Ms: Double?
    /// Mean of each phase over the requests that had it.
    public var phases: NetworkPhases
}

/// A request template (or all requests) split by app version and by network type.
public struct NetworkTemplateBreakdown: Sendable, Hashable, Codable {
    /// `METHOD urlTemplate`, as the network roll-ups name it; `*` for all requests.
    public var template: String
    /// The whole template.
    public var total: NetworkBreakdownRow
    /// By app version, most requests first.
    public var byVersion: [NetworkBreakdownRow]
    /// By network type, most requests first.
    public var byNetwork: [NetworkBreakdownRow]
}

/// Slow requests by template with their phase breakdown and error rate, by app version and by
/// network type: read from the recent requests' `request_facts` rows (the roll-ups are kept by
/// template and version only; the network type lives in each event's context, copied into the
/// row when the event was stored) or, with the events on ClickHouse (`--events`), from the
/// recent request events there (``ClickHouseEventStore/recentRequests(projectID:filter:limit:)``).
///
/// Reads at most ``maximumEvents`` of the newest requests of the window, so a page costs a
/// bounded scan whatever the traffic (a narrow row each from `request_facts`; on ClickHouse,
/// the payload and context of that many events); the answer says when it was cut. Both
/// sources give the same answer for the same events.
public struct NetworkBreakdown: Sendable {
    /// Events read per query at most.
    public var maximumEvents: Int
    private let store: ServerStore
    private let events: ClickHouseEventStore?

    /// A reader of `store`'s request facts or, when `events` is given, of the request events it
    /// holds (the main database then keeps no request facts, ``EventRowContent``).
    public init(store: ServerStore, events: ClickHouseEventStore? = nil, maximumEvents: Int = 20_000) {
        self.store = store
        self.events = events
        self.maximumEvents = max(1, maximumEvents)
    }

    /// What was read.
    public struct Result: Sendable, Codable {
        /// Templates, slowest p95 first; a single `*` entry when one template was asked for none.
        public var templates: [NetworkTemplateBreakdown]
        /// Events read.
        public var eventsRead: Int
        /// Whether the window held more events than were read (the oldest were left out).
        public var truncated: Bool
    }

    /// The breakdown of `template` (`METHOD urlTemplate`; nil: every template, plus all requests
    /// as `*`) over the last `days` days before `now`, for app `version` when given.
    public func breakdown(projectID: Int64, template: String? = nil, version: String? = nil, days: Int = 7,
                          now: Date = Date()) throws -> Result {
        try breakdown(projectID: projectID, template: template,
                      filter: DashboardFilter(range: .recent(hours: max(1, days) * 24), release: version), now: now)
    }

    /// The breakdown of `template` (nil: every template, plus all requests as `*`) over the
    /// network events `filter` selects (its time range, release, OS version, device model, page).
    public func breakdown(projectID: Int64, template: String? = nil, filter: DashboardFilter, now: Date = Date()) throws -> Result {
        let (requests, truncated) = try newestRequests(projectID: projectID, filter: filter, now: now)
        var all = Accumulator()
        var byTemplate: [String: Accumulator] = [:]
        for request in requests {
            if let template, request.template != template { continue }
            all.add(request)
            byTemplate[request.template, default: Accumulator()].add(request)
        }
        var templates = byTemplate.map { $0.value.breakdown(template: $0.key) }
            .sorted { ($0.total.p95Ms ?? 0, $0.template) > ($1.total.p95Ms ?? 0, $1.template) }
        if template == nil, all.total.requests > 0 { templates.insert(all.breakdown(template: "*"), at: 0) }
        return Result(templates: templates, eventsRead: requests.count, truncated: truncated)
    }

    /// The newest ``maximumEvents`` requests `filter` selects, newest first, and whether the
    /// window held more.
    private func newestRequests(projectID: Int64, filter: DashboardFilter, now: Date) throws -> ([Request], Bool) {
        if let events {
            let (facts, truncated) = try events.recentRequests(projectID: projectID,
                                                               filter: .overEvents(filter, now: now, pageIsDimension: false),
                                                               limit: maximumEvents)
            return (facts.map(Request.init), truncated)
        }
        let conditions = filter.eventConditions(now: now)
        let phases = ["dns_ms", "connect_ms", "tls_ms", "request_ms", "ttfb_ms", "response_ms"]
        var sql = "SELECT template, app_version, network, status, failed, total_ms, \(phases.joined(separator: ", ")) "
            + "FROM request_facts WHERE project_id = ?" + conditions.sql
        var arguments: [SQLValue] = [.integer(projectID)] + conditions.arguments
        sql += " ORDER BY occurred_at DESC LIMIT ?"
        arguments.append(.integer(Int64(maximumEvents) + 1))
        let rows = try store.database.read { connection in try connection.query(sql, arguments) }
        let requests = rows.prefix(maximumEvents).compactMap { row -> Request? in
            // A payload without a method, template or total (which the validator refuses) is left out.
            guard let name = row.string("template"), let total = row["total_ms"].double else { return nil }
            return Request(template: name, version: row.string("app_version") ?? "", network: row.string("network") ?? "unknown",
                           status: row["status"].double ?? 0, failed: row.int64("failed") != 0, totalMs: total,
                           phases: phases.map { row[$0].double })
        }
        return (requests, rows.count > maximumEvents)
    }

    /// What a breakdown reads of one request (a `request_facts` row, or the same read from a
    /// request event on ClickHouse).
    fileprivate struct Request {
        /// `METHOD urlTemplate`.
        var template: String
        var version: String
        var network: String
        var status: Double
        /// A transport error or a 5xx answer.
        var failed: Bool
        var totalMs: Double
        /// dns, connect, tls, request, ttfb, response (ms), nil when the request had no such phase.
        var phases: [Double?]
    }

    /// Counts, histograms and phase sums of one slice.
    private struct Slice {
        var requests = 0
        var errors = 0
        var clientErrors = 0
        var histogram = LogHistogram()
        var phaseSums = [Double](repeating: 0, count: 6)
        var phaseCounts = [Int](repeating: 0, count: 6)

        mutating func add(_ request: Request) {
            requests += 1
            if request.failed { errors += 1 } else if request.status >= 400 { clientErrors += 1 }
            histogram.add(request.totalMs)
            for (index, value) in request.phases.enumerated() {
                if let value, value.isFinite {
                    phaseSums[index] += value
                    phaseCounts[index] += 1
                }
            }
        }

        func row(_ key: String) -> NetworkBreakdownRow {
            func mean(_ index: Int) -> Double? { phaseCounts[index] > 0 ? phaseSums[index] / Double(phaseCounts[index]) : nil }
            return NetworkBreakdownRow(key: key, requests: requests, errors: errors, clientErrors: clientErrors,
                                       errorRate: requests > 0 ? Double(errors) / Double(requests) : 0,
                                       p50Ms: histogram.quantile(0.5), p95Ms: histogram.quantile(0.95),
                                       phases: NetworkPhases(dns: mean(0), connect: mean(1), tls: mean(2), request: mean(3),
                                                             ttfb: mean(4), response: mean(5)))
        }
    }

    private struct Accumulator {
        var total = Slice()
        var versions: [String: Slice] = [:]
        var networks: [String: Slice] = [:]

        mutating func add(_ request: Request) {
            total.add(request)
            versions[request.version, default: Slice()].add(request)
            networks[request.network, default: Slice()].add(request)
        }

        func breakdown(template: String) -> NetworkTemplateBreakdown {
            func ordered(_ slices: [String: Slice]) -> [NetworkBreakdownRow] {
                slices.map { $0.value.row($0.key) }.sorted { ($0.requests, $1.key) > ($1.requests, $0.key) }
            }
            return NetworkTemplateBreakdown(template: template, total: total.row(template), byVersion: ordered(versions),
                                            byNetwork: ordered(networks))
        }
    }
}

extension NetworkBreakdown.Request {
    /// What the breakdown reads of `fact`: its values as its `request_facts` row holds them.
    init(_ fact: RequestFact) {
        self.init(template: fact.template, version: fact.appVersion, network: fact.network, status: fact.status ?? 0,
                  failed: fact.failed, totalMs: fact.totalMs, phases: fact.phases)
    }
}
