import Foundation

/// Where and how ``OTLPExporter`` sends: an OpenTelemetry collector (or any OTLP/HTTP receiver,
/// Vigil's server included) and the batching limits.
public struct OTLPExporterConfiguration: Sendable, Hashable {
    /// The receiver's base URL, e.g. `http://collector:4318`; documents go to
    /// `<endpoint>/v1/traces` and `<endpoint>/v1/logs`.
    public var endpoint: URL
    /// Extra request headers, e.g. `Authorization` for a hosted backend.
    public var headers: [String: String]
    /// Compress request bodies with gzip (`Content-Encoding: gzip`). Default true.
    public var gzip: Bool
    /// Events per request at most. Default 512.
    public var maxBatchEvents: Int
    /// Events waiting at most; further events are dropped and counted. Default 10,000.
    public var maxQueuedEvents: Int
    /// A partial batch is sent after this many seconds. Default 5.
    public var flushIntervalSeconds: Double
    /// Per-request timeout, seconds. Default 10.
    public var timeoutSeconds: Double
    /// Attempts per request before its events are dropped (counted). Default 5.
    public var maxAttempts: Int
    /// Delays between attempts.
    public var backoff: BackoffSchedule

    /// A configuration sending to `endpoint` with the defaults.
    public init(endpoint: URL, headers: [String: String] = [:], gzip: Bool = true, maxBatchEvents: Int = 512,
                maxQueuedEvents: Int = 10_000, flushIntervalSeconds: Double = 5, timeoutSeconds: Double = 10,
                maxAttempts: Int = 5, backoff: BackoffSchedule = BackoffSchedule(baseSeconds: 1, capSeconds: 60,
                                                                                 jitterFraction: 0.2)) {
        self.endpoint = endpoint
        self.headers = headers
        self.gzip = gzip
        self.maxBatchEvents = max(1, maxBatchEvents)
        self.maxQueuedEvents = max(1, maxQueuedEvents)
        self.flushIntervalSeconds = flushIntervalSeconds.isFinite ? max(0.05, flushIntervalSeconds) : 5
        self.timeoutSeconds = timeoutSeconds.isFinite ? max(0.1, timeoutSeconds) : 10
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = backoff
    }

    /// `<endpoint>/v1/traces`.
    public var tracesURL: URL { endpoint.appendingPathComponent("v1/traces") }

    /// `<endpoint>/v1/logs`.
    public var logsURL: URL { endpoint.appendingPathComponent("v1/logs") }
}
