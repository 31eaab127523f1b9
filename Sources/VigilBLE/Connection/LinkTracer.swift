import Foundation
import VigilCore

/// A span's identity, to parent further spans under it (W3C trace-context ids).
public struct SpanContext: Sendable, Hashable {
    /// 32 lowercase hex digits.
    public var traceId: String
    /// 16 lowercase hex digits.
    public var spanId: String

    /// A context.
    public init(traceId: String, spanId: String) {
        self.traceId = traceId
        self.spanId = spanId
    }
}

/// Makes the link's spans — connection attempts, discovery, commands, transfers — and hands
/// each finished one to a ``SpanRecorder`` (the SDK wraps it into a schema-v1 `span` event).
///
/// Times come from the scheduler's clock, so simulated runs produce spans in virtual time.
/// Ids come from a seeded generator when a seed is given (reproducible simulations), else from
/// the system's random source. Confined to the link's scheduler.
public final class LinkTracer {
    private let recorder: (any SpanRecorder)?
    private let clock: any VigilClock
    private var generator: SeededGenerator?

    /// A tracer recording into `recorder` (spans are dropped when it is `nil`).
    public init(recorder: (any SpanRecorder)?, clock: any VigilClock, seed: UInt64? = nil) {
        self.recorder = recorder
        self.clock = clock
        self.generator = seed.map { SeededGenerator(seed: $0) }
    }

    /// A tracer that records nothing.
    public static func disabled(clock: any VigilClock) -> LinkTracer { LinkTracer(recorder: nil, clock: clock) }

    /// Starts a span named `name` under `parent` (a new trace when `nil`).
    public func startSpan(_ name: String, parent: SpanContext?, kind: SpanKind = .internal,
                          attributes: [String: AttributeValue] = [:]) -> ActiveSpan {
        let traceId = parent?.traceId ?? newTraceId()
        let context = SpanContext(traceId: traceId, spanId: newSpanId())
        return ActiveSpan(tracer: self, context: context, parentSpanId: parent?.spanId, name: name, kind: kind,
                          start: clock.monotonicNow(), attributes: attributes)
    }

    fileprivate func finish(_ span: ActiveSpan, status: SpanStatus, message: String?) {
        guard let recorder else { return }
        let end = clock.monotonicNow()
        let payload = SpanPayload(
            traceId: span.context.traceId, spanId: span.context.spanId, parentSpanId: span.parentSpanId,
            name: span.name, kind: span.kind, start: clock.wallTime(of: span.start), end: clock.wallTime(of: end),
            status: status, statusMessage: message, attributes: span.attributes)
        recorder.record(payload)
    }

    private func newTraceId() -> String {
        if var generator {
            defer { self.generator = generator }
            return TraceIdentifier.traceId(using: &generator)
        }
        return TraceIdentifier.traceId()
    }

    private func newSpanId() -> String {
        if var generator {
            defer { self.generator = generator }
            return TraceIdentifier.spanId(using: &generator)
        }
        return TraceIdentifier.spanId()
    }
}

/// A span in progress: add attributes, then ``end(status:message:)`` it exactly once (later
/// calls are ignored, so error paths may end it defensively).
public final class ActiveSpan {
    /// Its identity, to parent child spans.
    public let context: SpanContext
    /// The parent's span id.
    public let parentSpanId: String?
    /// Operation name (`ble.connect`, `ble.transfer`, …).
    public let name: String
    /// Span kind.
    public let kind: SpanKind
    /// Monotonic start.
    public let start: MonotonicInstant
    /// Attributes so far.
    public var attributes: [String: AttributeValue]
    /// Whether it has ended.
    public private(set) var isEnded = false
    private weak var tracer: LinkTracer?

    fileprivate init(tracer: LinkTracer, context: SpanContext, parentSpanId: String?, name: String, kind: SpanKind,
                     start: MonotonicInstant, attributes: [String: AttributeValue]) {
        self.tracer = tracer
        self.context = context
        self.parentSpanId = parentSpanId
        self.name = name
        self.kind = kind
        self.start = start
        self.attributes = attributes
    }

    /// Sets one attribute.
    public subscript(key: String) -> AttributeValue? {
        get { attributes[key] }
        set { attributes[key] = newValue }
    }

    /// Ends the span with `status` (and `message` for errors) and records it.
    public func end(status: SpanStatus, message: String? = nil) {
        guard !isEnded else { return }
        isEnded = true
        tracer?.finish(self, status: status, message: message)
    }

    /// Ends the span as `ok` with `ble.result = ok`, or as `error` with the error's text.
    public func end<Failure: Error>(_ result: Result<some Any, Failure>) {
        switch result {
        case .success:
            attributes["ble.result"] = "ok"
            end(status: .ok)
        case .failure(let error):
            attributes["ble.result"] = .string(String(describing: error))
            end(status: .error, message: String(describing: error))
        }
    }
}
