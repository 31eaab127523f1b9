import Foundation

/// Outcome of a span, as in OpenTelemetry.
public enum SpanStatus: String, Codable, Sendable, CaseIterable {
    case unset, ok, error
}

/// Role of a span, as OpenTelemetry's `SpanKind`.
public enum SpanKind: String, Codable, Sendable, CaseIterable {
    case `internal`, server, client, producer, consumer
}

/// Payload of a `span` event: one timed operation in a trace, shaped to map one to one onto an
/// OpenTelemetry span.
public struct SpanPayload: Codable, Sendable, Hashable {
    /// 32 lowercase hex digits (16 bytes).
    public var traceId: String
    /// 16 lowercase hex digits (8 bytes).
    public var spanId: String
    /// The parent span's id, absent for a root span.
    public var parentSpanId: String?
    /// Operation name, e.g. `ble.connect` or `launch.task.database`.
    public var name: String
    /// Span kind; `internal` when absent.
    public var kind: SpanKind?
    /// Start (wall clock).
    public var start: Date
    /// End (wall clock).
    public var end: Date
    /// Outcome.
    public var status: SpanStatus
    /// Error description when `status` is `error`.
    public var statusMessage: String?
    /// Attributes, using OpenTelemetry semantic-convention keys where one exists.
    public var attributes: [String: AttributeValue]

    public init(traceId: String, spanId: String, parentSpanId: String? = nil, name: String, kind: SpanKind? = nil,
                start: Date, end: Date, status: SpanStatus = .unset, statusMessage: String? = nil,
                attributes: [String: AttributeValue] = [:]) {
        self.traceId = traceId
        self.spanId = spanId
        self.parentSpanId = parentSpanId
        self.name = name
        self.kind = kind
        self.start = start
        self.end = end
        self.status = status
        self.statusMessage = statusMessage
        self.attributes = attributes
    }

    /// Span length in milliseconds.
    public var durationMs: Double { end.timeIntervalSince(start) * 1000 }
}
