/// The moments of one HTTP transaction, in milliseconds from the request's start, as far as the
/// platform lets the adapter see them: Apple's `URLSessionTaskTransactionMetrics` gives every
/// one of them, FoundationNetworking on Linux only the start, the first response byte and the
/// end. Each absent mark leaves its phase absent.
public struct NetworkTransactionMarks: Sendable, Hashable {
    /// Start of name resolution.
    public var domainLookupStart: Double?
    /// End of name resolution.
    public var domainLookupEnd: Double?
    /// Start of the TCP (or QUIC) connection.
    public var connectStart: Double?
    /// End of the connection, TLS included (Apple's convention).
    public var connectEnd: Double?
    /// Start of the TLS handshake.
    public var secureConnectionStart: Double?
    /// End of the TLS handshake.
    public var secureConnectionEnd: Double?
    /// First byte of the request sent.
    public var requestStart: Double?
    /// Last byte of the request sent.
    public var requestEnd: Double?
    /// First byte of the response.
    public var responseStart: Double?
    /// Last byte of the response.
    public var responseEnd: Double?
    /// End of the whole request (after redirects), required.
    public var end: Double

    /// Marks ending at `end` ms; the rest is filled by the adapter.
    public init(domainLookupStart: Double? = nil, domainLookupEnd: Double? = nil, connectStart: Double? = nil,
                connectEnd: Double? = nil, secureConnectionStart: Double? = nil, secureConnectionEnd: Double? = nil,
                requestStart: Double? = nil, requestEnd: Double? = nil, responseStart: Double? = nil,
                responseEnd: Double? = nil, end: Double) {
        self.domainLookupStart = domainLookupStart
        self.domainLookupEnd = domainLookupEnd
        self.connectStart = connectStart
        self.connectEnd = connectEnd
        self.secureConnectionStart = secureConnectionStart
        self.secureConnectionEnd = secureConnectionEnd
        self.requestStart = requestStart
        self.requestEnd = requestEnd
        self.responseStart = responseStart
        self.responseEnd = responseEnd
        self.end = end
    }

    /// The phase durations: DNS, connect (TLS excluded), TLS, request, time to first byte
    /// (request sent, or the start when that is unknown, to the first response byte), response
    /// (first to last byte) and total. A phase whose marks are missing, out of order or not
    /// finite is absent; the total is never negative.
    public var timings: NetworkTimings {
        func span(_ from: Double?, _ to: Double?) -> Double? {
            guard let from, let to, from.isFinite, to.isFinite, to >= from else { return nil }
            return to - from
        }
        let tls = span(secureConnectionStart, secureConnectionEnd)
        var connect = span(connectStart, connectEnd)
        if let whole = connect, let tls { connect = max(0, whole - tls) }
        let sent = requestEnd ?? requestStart ?? 0
        return NetworkTimings(dns: span(domainLookupStart, domainLookupEnd), connect: connect, tls: tls,
                              request: span(requestStart, requestEnd), ttfb: span(sent, responseStart),
                              response: span(responseStart, responseEnd),
                              total: end.isFinite ? max(0, end) : 0)
    }
}
