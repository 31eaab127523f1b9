/// Turns a ``NetworkObservation`` into the payload of one `network` event, or decides to drop
/// it: templating, header filtering, exclusion and sampling in one place shared by the Apple
/// adapter and the Linux recorder.
///
/// A value type with no shared state; safe from any thread. Cost per request: one pass over the
/// URL, a dictionary pass over the headers only when some are allow-listed.
public struct NetworkEventBuilder: Sendable {
    /// The configuration in force (clamped).
    public let configuration: NetworkConfiguration
    /// The URL templater.
    public let templater: URLTemplater
    /// The sampler.
    public let sampler: NetworkSampler
    private let requestHeaders: NetworkHeaderFilter
    private let responseHeaders: NetworkHeaderFilter

    /// A builder applying `configuration`.
    public init(configuration: NetworkConfiguration = NetworkConfiguration()) {
        let clamped = configuration.clamped()
        self.configuration = clamped
        templater = URLTemplater(rules: clamped.templates)
        sampler = NetworkSampler(configuration: clamped)
        requestHeaders = NetworkHeaderFilter(allowing: clamped.recordedRequestHeaders)
        responseHeaders = NetworkHeaderFilter(allowing: clamped.recordedResponseHeaders)
    }

    /// Whether requests to `host` are left alone entirely (not recorded, no trace context).
    public func isExcluded(host: String) -> Bool {
        configuration.excludedHosts.contains(host: host)
    }

    /// Whether a request to `host` should be sent a `traceparent` header.
    public func propagatesTraceContext(to host: String) -> Bool {
        !isExcluded(host: host) && configuration.traceContextHosts.contains(host: host)
    }

    /// Whether any request header is recorded (adapters skip copying headers otherwise).
    public var recordsRequestHeaders: Bool { !requestHeaders.isEmpty }

    /// Whether any response header is recorded.
    public var recordsResponseHeaders: Bool { !responseHeaders.isEmpty }

    /// The decision for `observation` and, when kept, its payload. `generator` is drawn from
    /// only when the sampling rate decides a request without a trace id.
    public func build<G: RandomNumberGenerator>(_ observation: NetworkObservation,
                                                using generator: inout G) -> (decision: SamplingDecision, payload: NetworkPayload?) {
        let parts = URLParts(observation.url)
        if isExcluded(host: parts.host) { return (.droppedExcludedHost, nil) }
        let timings = observation.marks.timings
        // A cancellation is the app's choice, not a failure: it is sampled like a success
        // (search-as-you-type cancels most of its requests).
        let failed = observation.failure.map { !$0.isCancellation } ?? false
        let decision = sampler.decide(status: observation.status, failed: failed,
                                      totalMs: timings.total, traceId: observation.traceParent?.traceId,
                                      using: &generator)
        guard decision.isKept else { return (decision, nil) }
        let payload = NetworkPayload(
            method: Self.normalizedMethod(observation.method), urlTemplate: templater.template(parts),
            host: parts.host, status: observation.status, error: observation.failure?.description,
            bytesSent: max(0, observation.bytesSent), bytesReceived: max(0, observation.bytesReceived),
            timings: timings, reusedConnection: observation.reusedConnection,
            protocol: observation.networkProtocol, traceId: observation.traceParent?.traceId,
            spanId: observation.traceParent?.parentId,
            requestHeaders: requestHeaders.filter(observation.requestHeaders),
            responseHeaders: responseHeaders.filter(observation.responseHeaders))
        return (decision, payload)
    }

    /// Uppercase ASCII token, at most 32 bytes; anything else becomes `OTHER` (as OpenTelemetry's
    /// `http.request.method` convention does), so a hostile method cannot explode cardinality.
    static func normalizedMethod(_ method: String) -> String {
        let bytes = method.utf8
        guard !bytes.isEmpty, bytes.count <= 32 else { return "OTHER" }
        var lowercase = false
        for byte in bytes {
            switch byte {
            case 0x41...0x5A, UInt8(ascii: "-"), UInt8(ascii: "_"): break
            case 0x61...0x7A: lowercase = true
            default: return "OTHER"
            }
        }
        return lowercase ? String(decoding: bytes.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 32 : $0 }, as: UTF8.self) : method
    }
}
