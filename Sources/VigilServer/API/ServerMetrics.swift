import Foundation
import Synchronization

/// The server's counters, exposed on `GET /metrics` in the Prometheus text format.
///
/// Threading: safe to share; every update takes one short lock.
public final class ServerMetrics: Sendable {
    private let state = Mutex(State())

    private struct State {
        var requests: [RequestKey: Int] = [:]
        var durations: [String: (sum: Double, count: Int, buckets: [Int])] = [:]
        var accepted = 0
        var stored = 0
        var duplicates = 0
        var sanitized = 0
        var rejected: [String: Int] = [:]
        var processed = 0
        var processingFailures = 0
        var pruned = 0
        var rateLimited = 0
        var recentLags: [Double] = []
        var lagCursor = 0
    }

    private struct RequestKey: Hashable {
        var route: String
        var status: Int
    }

    /// Upper bounds of the request-duration histogram, in seconds.
    static let durationBuckets: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    /// How many recent processing lags the quantiles are computed over.
    static let lagWindow = 4096

    /// An empty set of counters.
    public init() {}

    /// Counts one answered request.
    public func recordRequest(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RequestKey(route: route, status: status), default: 0] += 1
            var entry = state.durations[route] ?? (0, 0, Array(repeating: 0, count: Self.durationBuckets.count))
            entry.sum += seconds
            entry.count += 1
            for (index, bound) in Self.durationBuckets.enumerated() where seconds <= bound { entry.buckets[index] += 1 }
            state.durations[route] = entry
        }
    }

    /// Counts one ingested batch.
    public func recordIngest(_ outcome: EventIngestor.Outcome) {
        state.withLock { state in
            state.accepted += outcome.accepted.count
            state.stored += outcome.stored
            state.duplicates += outcome.duplicates
            state.sanitized += outcome.sanitized
            for rejection in outcome.rejected { state.rejected[rejection.category.rawValue, default: 0] += 1 }
        }
    }

    /// Counts a request refused by the rate limiter.
    public func recordRateLimited() { state.withLock { $0.rateLimited += 1 } }

    /// Counts processed events and their lags (stored → processed), in seconds.
    public func recordProcessed(lags: [Double]) {
        state.withLock { state in
            state.processed += lags.count
            for lag in lags {
                if state.recentLags.count < Self.lagWindow {
                    state.recentLags.append(lag)
                } else {
                    state.recentLags[state.lagCursor] = lag
                    state.lagCursor = (state.lagCursor + 1) % Self.lagWindow
                }
            }
        }
    }

    /// Counts a processing batch that failed (and will be retried).
    public func recordProcessingFailure() { state.withLock { $0.processingFailures += 1 } }

    /// Counts raw events retention deleted.
    public func recordPruned(_ count: Int) { state.withLock { $0.pruned += count } }

    /// Events accepted so far (stored or duplicate).
    public var acceptedEvents: Int { state.withLock { $0.accepted } }

    /// Events processed so far (first processings, not re-processings).
    public var processedEvents: Int { state.withLock { $0.processed } }

    /// The `q` quantile (0…1) of recent processing lags in seconds, nil before any.
    public func processingLag(quantile q: Double) -> Double? {
        let lags = state.withLock { $0.recentLags }.sorted()
        guard !lags.isEmpty else { return nil }
        return lags[min(lags.count - 1, Int((Double(lags.count - 1) * q).rounded()))]
    }

    /// The metrics in the Prometheus text exposition format; `gauges` adds point-in-time values
    /// (database size, pending events) measured by the caller.
    public func prometheusText(gauges: [(name: String, help: String, value: Double)] = []) -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        func header(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        func label(_ text: String) -> String {
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
        }
        header("vigil_http_requests_total", "counter", "HTTP requests answered, by route and status.")
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            out += "vigil_http_requests_total{route=\"\(label(key.route))\",status=\"\(key.status)\"} \(count)\n"
        }
        header("vigil_http_request_duration_seconds", "histogram", "Time from request headers to answer, by route.")
        for (route, entry) in snapshot.durations.sorted(by: { $0.key < $1.key }) {
            for (index, bound) in Self.durationBuckets.enumerated() {
                out += "vigil_http_request_duration_seconds_bucket{route=\"\(label(route))\",le=\"\(bound)\"} \(entry.buckets[index])\n"
            }
            out += "vigil_http_request_duration_seconds_bucket{route=\"\(label(route))\",le=\"+Inf\"} \(entry.count)\n"
            out += "vigil_http_request_duration_seconds_sum{route=\"\(label(route))\"} \(entry.sum)\n"
            out += "vigil_http_request_duration_seconds_count{route=\"\(label(route))\"} \(entry.count)\n"
        }
        header("vigil_events_accepted_total", "counter", "Events accepted (stored now or already stored).")
        out += "vigil_events_accepted_total \(snapshot.accepted)\n"
        header("vigil_events_stored_total", "counter", "Events newly stored.")
        out += "vigil_events_stored_total \(snapshot.stored)\n"
        header("vigil_events_duplicate_total", "counter", "Accepted events whose id was already stored.")
        out += "vigil_events_duplicate_total \(snapshot.duplicates)\n"
        header("vigil_events_sanitized_total", "counter", "Accepted events the sanitizer changed.")
        out += "vigil_events_sanitized_total \(snapshot.sanitized)\n"
        header("vigil_events_rejected_total", "counter", "Events rejected, by reason class.")
        for category in EventRejection.Category.allCases {
            out += "vigil_events_rejected_total{reason=\"\(category.rawValue)\"} \(snapshot.rejected[category.rawValue] ?? 0)\n"
        }
        header("vigil_rate_limited_total", "counter", "Requests refused with 429.")
        out += "vigil_rate_limited_total \(snapshot.rateLimited)\n"
        header("vigil_events_processed_total", "counter", "Events processed (grouped, rolled up).")
        out += "vigil_events_processed_total \(snapshot.processed)\n"
        header("vigil_processing_failures_total", "counter", "Processing batches that failed and were retried.")
        out += "vigil_processing_failures_total \(snapshot.processingFailures)\n"
        header("vigil_events_pruned_total", "counter", "Raw events this server deleted for being older than --retention-days.")
        out += "vigil_events_pruned_total \(snapshot.pruned)\n"
        header("vigil_processing_lag_seconds", "summary", "Time from an event stored to its processing, over recent events.")
        let lags = snapshot.recentLags.sorted()
        for q in [0.5, 0.95, 0.99] {
            let value = lags.isEmpty ? 0 : lags[min(lags.count - 1, Int((Double(lags.count - 1) * q).rounded()))]
            out += "vigil_processing_lag_seconds{quantile=\"\(q)\"} \(value)\n"
        }
        out += "vigil_processing_lag_seconds_count \(snapshot.processed)\n"
        for gauge in gauges {
            header(gauge.name, "gauge", gauge.help)
            out += "\(gauge.name) \(gauge.value)\n"
        }
        return out
    }
}
