/// Payload of a `network` event: one HTTP request as the app saw it.
public struct NetworkPayload: Codable, Sendable, Hashable {
    /// HTTP method, uppercase.
    public var method: String
    /// URL with ids folded and the query dropped, e.g. `https://api.example.com/users/:id`.
    public var urlTemplate: String
    /// Host name of the request.
    public var host: String
    /// HTTP status code, absent when no response arrived.
    public var status: Int?
    /// Transport error (domain and code or a short description), absent on success.
    public var error: String?
    /// Request bytes sent, headers included when known.
    public var bytesSent: Int64
    /// Response bytes received, headers included when known.
    public var bytesReceived: Int64
    /// Phase durations in milliseconds.
    public var timings: NetworkTimings
    /// Whether an existing connection was reused (no DNS, TCP or TLS phase).
    public var reusedConnection: Bool?
    /// Negotiated protocol, e.g. `http/1.1`, `h2`, `h3`.
    public var `protocol`: String?
    /// W3C trace id sent in `traceparent`, when the request carried one.
    public var traceId: String?
    /// Span id sent in `traceparent`.
    public var spanId: String?
    /// Allow-listed request headers (names lowercased); absent unless the app lists some.
    public var requestHeaders: [String: String]?
    /// Allow-listed response headers (names lowercased); absent unless the app lists some.
    public var responseHeaders: [String: String]?

    public init(method: String, urlTemplate: String, host: String, status: Int? = nil, error: String? = nil,
                bytesSent: Int64, bytesReceived: Int64, timings: NetworkTimings, reusedConnection: Bool? = nil,
                protocol: String? = nil, traceId: String? = nil, spanId: String? = nil,
                requestHeaders: [String: String]? = nil, responseHeaders: [String: String]? = nil) {
        self.method = method
        self.urlTemplate = urlTemplate
        self.host = host
        self.status = status
        self.error = error
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.timings = timings
        self.reusedConnection = reusedConnection
        self.protocol = `protocol`
        self.traceId = traceId
        self.spanId = spanId
        self.requestHeaders = requestHeaders
        self.responseHeaders = responseHeaders
    }
}

/// The phases of one HTTP request in milliseconds; a phase that did not happen or could not be
/// observed (Linux has no task metrics) is absent.
public struct NetworkTimings: Codable, Sendable, Hashable {
    /// Name resolution.
    public var dns: Double?
    /// TCP connect (TLS excluded).
    public var connect: Double?
    /// TLS handshake.
    public var tls: Double?
    /// Sending the request.
    public var request: Double?
    /// Request sent to first response byte.
    public var ttfb: Double?
    /// First to last response byte.
    public var response: Double?
    /// Whole request, start to end.
    public var total: Double

    public init(dns: Double? = nil, connect: Double? = nil, tls: Double? = nil, request: Double? = nil,
                ttfb: Double? = nil, response: Double? = nil, total: Double) {
        self.dns = dns
        self.connect = connect
        self.tls = tls
        self.request = request
        self.ttfb = ttfb
        self.response = response
        self.total = total
    }
}
