/// Settings of network request recording, with the defaults Vigil ships: every request kept,
/// failures and requests slower than 1 s always kept whatever the rate, ids folded, queries,
/// fragments and headers never recorded, no `traceparent` sent anywhere.
///
/// A plain value; ``NetworkEventBuilder`` applies it (clamped) and the platform adapters ask it
/// which hosts to skip and which to send trace context to.
public struct NetworkConfiguration: Sendable, Hashable {
    /// How URLs become templates.
    public var templates = URLTemplateRules()
    /// Share of ordinary requests recorded, 0…1. Default 1. A request carrying a trace id is
    /// sampled on that id, so every app and backend using the id agree.
    public var sampleRate: Double = 1
    /// Requests that take at least this long, in ms, are "slow". Default 1000.
    public var slowThresholdMs: Double = 1000
    /// Record every slow request whatever ``sampleRate`` says. Default true.
    public var alwaysKeepSlow = true
    /// Record every failed request (transport error or a status at or above
    /// ``failureStatusMinimum``) whatever ``sampleRate`` says. Default true.
    public var alwaysKeepFailures = true
    /// Lowest HTTP status that counts as a failure. Default 400 (as OpenTelemetry does for
    /// client spans).
    public var failureStatusMinimum = 400
    /// Request headers recorded (names, any case); nothing else is. Credentials
    /// (``NetworkHeaderFilter/neverRecorded``) are never recorded even when listed.
    public var recordedRequestHeaders: Set<String> = []
    /// Response headers recorded, as ``recordedRequestHeaders``.
    public var recordedResponseHeaders: Set<String> = []
    /// Hosts never recorded (e.g. a streaming endpoint, an analytics vendor). Vigil's own server
    /// is added by the SDK.
    public var excludedHosts: HostPatternSet = []
    /// Hosts that receive a W3C `traceparent` header on each request (first-party backends only:
    /// the header tells the receiver a trace id). Default: none.
    public var traceContextHosts: HostPatternSet = []
    /// Requests followed at once; beyond this the oldest unfinished one is forgotten (counted).
    /// Default 1024.
    public var maximumInFlight = 1024

    /// The defaults.
    public init() {}

    /// Every field forced into its valid range; NaN becomes the default.
    public func clamped() -> NetworkConfiguration {
        let defaults = NetworkConfiguration()
        var result = self
        result.templates = templates.clamped()
        result.sampleRate = Clamp.value(sampleRate, 0...1, default: defaults.sampleRate)
        result.slowThresholdMs = Clamp.value(slowThresholdMs, 1...3_600_000, default: defaults.slowThresholdMs)
        result.failureStatusMinimum = min(max(failureStatusMinimum, 100), 600)
        result.maximumInFlight = min(max(maximumInFlight, 16), 1 << 16)
        return result
    }

    /// Problems with the current values, one per field.
    public func problems() -> [ConfigurationProblem] {
        var found = templates.problems(prefix: "network.templates.")
        func check(_ ok: Bool, _ field: String, _ value: Any, _ expected: String) {
            if !ok { found.append(ConfigurationProblem(field: "network." + field, value: "\(value)", expected: expected)) }
        }
        check(sampleRate.isFinite && (0...1).contains(sampleRate), "sampleRate", sampleRate, "0...1")
        check(slowThresholdMs.isFinite && slowThresholdMs >= 1, "slowThresholdMs", slowThresholdMs, ">= 1")
        check((100...600).contains(failureStatusMinimum), "failureStatusMinimum", failureStatusMinimum, "100...600")
        check((16...(1 << 16)).contains(maximumInFlight), "maximumInFlight", maximumInFlight, "16...65536")
        for name in (recordedRequestHeaders.union(recordedResponseHeaders)).sorted()
        where NetworkHeaderFilter.neverRecorded.contains(name.lowercased()) {
            check(false, "recordedHeaders", name, "not a credential header (never recorded)")
        }
        return found
    }
}
