import Foundation
import VigilCore

extension Vigil {
    /// A ``SpanRecorder`` that stores every span it receives as a `span` event of the running
    /// session: pass it to `LaunchRunner.Options(spanRecorder:)` or
    /// `LinkTracer(recorder:clock:)` to see launch tasks and BLE steps next to the app's hangs.
    public static var spanRecorder: VigilSpanRecorder { VigilSpanRecorder() }

    /// Records one span the app timed itself (for example a span received from a library that
    /// traces on its own). Dropped when the SDK is not running. Any thread; returns at once.
    public static func recordSpan(_ span: SpanPayload) {
        SessionSlot.shared.current?.recordSpan(span)
    }

    /// Runs `body` and records it as a span named `name` — a new trace, or a child of `parent`
    /// (a ``TraceParent`` from an incoming request or from ``addTraceContext(to:)``) — ending
    /// `ok`, or `error` with the error's description when `body` throws.
    ///
    /// Runs `body` on the calling thread; the cost beyond it is a few clock reads and two random
    /// ids (none of it while the SDK is not running). The error is rethrown unchanged.
    @discardableResult
    public static func measure<Value>(_ name: String, parent: TraceParent? = nil, kind: SpanKind = .internal,
                                       attributes: [String: AttributeValue] = [:],
                                       _ body: () throws -> Value) rethrows -> Value {
        let clock = SessionSlot.shared.clock
        let start = clock.monotonicNow()
        func finish(_ status: SpanStatus, _ message: String?) {
            guard let session = SessionSlot.shared.current else { return }
            // Length from the monotonic clock, dates from the wall clock (the session's clocks).
            let end = clock.monotonicNow()
            let endDate = clock.wallTime(of: end)
            let startDate = endDate.addingTimeInterval(-Double(end.nanoseconds(since: start)) / 1_000_000_000)
            session.recordSpan(SpanPayload(traceId: parent?.traceId ?? TraceIdentifier.traceId(), spanId: TraceIdentifier.spanId(),
                                           parentSpanId: parent?.parentId, name: name, kind: kind, start: startDate,
                                           end: endDate, status: status, statusMessage: message, attributes: attributes))
        }
        do {
            let result = try body()
            finish(.ok, nil)
            return result
        } catch {
            finish(.error, String(describing: error))
            throw error
        }
    }
}
