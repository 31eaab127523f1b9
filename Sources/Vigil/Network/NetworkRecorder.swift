import Foundation
import VigilCore

/// The platform-independent half of network monitoring: the platform adapters (the
/// `URLProtocol` recorder on Linux, the `URLSession` hooks on Apple platforms) hand it each
/// finished request as a ``NetworkObservation``; it decides (``NetworkEventBuilder``), counts,
/// and passes every kept request on as a `network` payload with its start time.
///
/// It also decides, per request, whether to send a W3C `traceparent` and which one.
///
/// Threading: every method may be called from any thread; state sits behind one lock held for
/// a few hundred nanoseconds. `output` is called outside the lock, on the adapter's thread,
/// and must return quickly (the SDK hands over to its monitoring queue).
public final class NetworkRecorder: @unchecked Sendable {
    /// What a kept request becomes: its payload and its wall-clock start (the event's time).
    public typealias Output = @Sendable (_ payload: NetworkPayload, _ start: Date) -> Void

    /// The clock the adapters time requests with.
    public let clock: any VigilClock
    private let lock = NSLock()
    private var builder: NetworkEventBuilder
    private var output: Output
    private var generator: SeededGenerator
    private var countersStorage = NetworkRecordingCounters()
    private var active = true

    /// A recorder applying `configuration`, timing with `clock`, handing kept requests to
    /// `output`. `seed` fixes the sampling and id generator (tests); by default it comes from
    /// the system's random source.
    public init(configuration: NetworkConfiguration = NetworkConfiguration(), clock: any VigilClock = SystemClock(),
                seed: UInt64? = nil, output: @escaping Output) {
        self.builder = NetworkEventBuilder(configuration: configuration)
        self.clock = clock
        self.output = output
        generator = SeededGenerator(seed: seed ?? UInt64.random(in: 0...UInt64.max))
    }

    /// The configuration in force (clamped).
    public var configuration: NetworkConfiguration {
        lock.lock(); defer { lock.unlock() }
        return builder.configuration
    }

    /// Applies a new configuration and output and (re)starts recording: how the SDK points the
    /// process-wide recorder at each new monitoring session. Requests in flight finish under
    /// the new settings.
    public func restart(configuration: NetworkConfiguration, output: @escaping Output) {
        let made = NetworkEventBuilder(configuration: configuration)
        lock.lock()
        builder = made
        self.output = output
        active = true
        lock.unlock()
    }

    private var currentBuilder: NetworkEventBuilder {
        lock.lock(); defer { lock.unlock() }
        return builder
    }

    /// Whether requests are recorded; after ``stop()`` the adapters pass requests through
    /// untouched.
    public var isActive: Bool {
        lock.lock(); defer { lock.unlock() }
        return active
    }

    /// Stops recording; requests in flight finish normally and are not recorded.
    public func stop() {
        lock.lock(); active = false; lock.unlock()
    }

    /// Counts so far.
    public var counters: NetworkRecordingCounters {
        lock.lock(); defer { lock.unlock() }
        return countersStorage
    }

    /// Whether a request to `host` is to be left alone (not recorded, no trace context).
    public func isExcluded(host: String) -> Bool { currentBuilder.isExcluded(host: host) }

    /// Whether the adapter should copy request headers into observations.
    public var recordsRequestHeaders: Bool { currentBuilder.recordsRequestHeaders }

    /// Whether the adapter should copy response headers into observations.
    public var recordsResponseHeaders: Bool { currentBuilder.recordsResponseHeaders }

    /// The trace context of a request about to be sent to `host` whose `traceparent` header is
    /// `existing`: the app's own value when it set a valid one (`inject` false), a new trace
    /// when `host` is listed in ``NetworkConfiguration/traceContextHosts`` (`inject` true: the
    /// adapter adds the header), nil otherwise.
    public func traceContext(host: String, existing: String?) -> (parent: TraceParent, inject: Bool)? {
        if let existing, let parsed = TraceParent(header: existing) { return (parsed, false) }
        lock.lock()
        guard active, builder.propagatesTraceContext(to: host) else { lock.unlock(); return nil }
        let parent = TraceParent.random(using: &generator)
        countersStorage.traceContextInjected &+= 1
        lock.unlock()
        return (parent, true)
    }

    /// Whether a request to `host` without a `traceparent` of its own gets one.
    public func propagatesTraceContext(to host: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return active && builder.propagatesTraceContext(to: host)
    }

    /// Records one finished request: decides, counts, and hands a kept one to the output.
    public func record(_ observation: NetworkObservation) {
        lock.lock()
        guard active else { lock.unlock(); return }
        let (decision, payload) = builder.build(observation, using: &generator)
        countersStorage.count(decision)
        let output = self.output
        lock.unlock()
        if let payload { output(payload, observation.start) }
    }

    /// Counts a request the adapter stopped following (more than
    /// ``NetworkConfiguration/maximumInFlight`` at once).
    public func countOverflow() {
        lock.lock(); countersStorage.droppedOverflow &+= 1; lock.unlock()
    }
}
