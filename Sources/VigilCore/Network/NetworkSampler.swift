/// Decides which finished requests are recorded: failures and slow requests always (when so
/// configured), the rest at ``NetworkConfiguration/sampleRate``.
///
/// A request that carries a trace id is sampled on that id (its last 14 hex digits read as a
/// fraction, as OpenTelemetry's ratio sampler does), so the decision is the same for every
/// request of a trace and on every device; other requests draw from the injected generator.
public struct NetworkSampler: Sendable {
    /// Share of ordinary requests kept, 0…1.
    public let sampleRate: Double
    /// Total duration, in ms, from which a request is slow.
    public let slowThresholdMs: Double
    /// Whether slow requests bypass the rate.
    public let alwaysKeepSlow: Bool
    /// Whether failures bypass the rate.
    public let alwaysKeepFailures: Bool
    /// Lowest status counted as a failure.
    public let failureStatusMinimum: Int

    /// A sampler with `configuration`'s (clamped) settings.
    public init(configuration: NetworkConfiguration) {
        let clamped = configuration.clamped()
        sampleRate = clamped.sampleRate
        slowThresholdMs = clamped.slowThresholdMs
        alwaysKeepSlow = clamped.alwaysKeepSlow
        alwaysKeepFailures = clamped.alwaysKeepFailures
        failureStatusMinimum = clamped.failureStatusMinimum
    }

    /// Whether a request with this outcome failed: a transport failure, or a status at or
    /// above ``failureStatusMinimum``.
    public func isFailure(status: Int?, failed: Bool) -> Bool {
        failed || (status.map { $0 >= failureStatusMinimum } ?? false)
    }

    /// The decision for a request; `generator` is used only when the rate decides and there is
    /// no trace id.
    public func decide<G: RandomNumberGenerator>(status: Int?, failed: Bool, totalMs: Double, traceId: String?,
                                                 using generator: inout G) -> SamplingDecision {
        if alwaysKeepFailures, isFailure(status: status, failed: failed) { return .keptFailure }
        if alwaysKeepSlow, totalMs >= slowThresholdMs { return .keptSlow }
        if sampleRate >= 1 { return .keptSampled }
        if sampleRate <= 0 { return .droppedBySampling }
        let draw = traceId.flatMap(Self.fraction(ofTraceId:)) ?? Double.random(in: 0..<1, using: &generator)
        return draw < sampleRate ? .keptSampled : .droppedBySampling
    }

    /// The last 56 bits of a valid trace id as a fraction in [0, 1); nil for an invalid id.
    public static func fraction(ofTraceId traceId: String) -> Double? {
        guard TraceIdentifier.isValid(traceId, hexDigits: 32), let low = UInt64(traceId.suffix(14), radix: 16) else {
            return nil
        }
        return Double(low) / Double(UInt64(1) << 56)
    }
}
