import Foundation

/// One finished request as a platform adapter saw it, before templating, header filtering and
/// sampling: the input of ``NetworkEventBuilder``.
public struct NetworkObservation: Sendable, Hashable {
    /// HTTP method as sent (any case).
    public var method: String
    /// The absolute URL as requested (the original request, before redirects).
    public var url: String
    /// Request headers as sent (names in any case); only the allow-listed ones are kept.
    public var requestHeaders: [String: String]
    /// Response headers as received.
    public var responseHeaders: [String: String]
    /// HTTP status, nil when no response arrived.
    public var status: Int?
    /// Transport failure, nil when the request completed.
    public var failure: NetworkFailure?
    /// Request bytes (body, plus headers when the platform counts them).
    public var bytesSent: Int64
    /// Response bytes (body, plus headers when the platform counts them).
    public var bytesReceived: Int64
    /// Wall-clock start of the request: the event's time.
    public var start: Date
    /// Phase marks relative to ``start``.
    public var marks: NetworkTransactionMarks
    /// Whether the connection was reused, when known.
    public var reusedConnection: Bool?
    /// Negotiated protocol (`http/1.1`, `h2`, `h3`), when known.
    public var networkProtocol: String?
    /// The `traceparent` the request carried (sent by Vigil or already set by the app).
    public var traceParent: TraceParent?

    /// An observation; every field but the URL, method, start and marks has a neutral default.
    public init(method: String, url: String, requestHeaders: [String: String] = [:],
                responseHeaders: [String: String] = [:], status: Int? = nil, failure: NetworkFailure? = nil,
                bytesSent: Int64 = 0, bytesReceived: Int64 = 0, start: Date, marks: NetworkTransactionMarks,
                reusedConnection: Bool? = nil, networkProtocol: String? = nil, traceParent: TraceParent? = nil) {
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.responseHeaders = responseHeaders
        self.status = status
        self.failure = failure
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.start = start
        self.marks = marks
        self.reusedConnection = reusedConnection
        self.networkProtocol = networkProtocol
        self.traceParent = traceParent
    }
}
