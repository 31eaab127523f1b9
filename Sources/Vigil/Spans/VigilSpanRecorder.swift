import VigilCore

/// The ``SpanRecorder`` that turns each span into a `span` event of the running session, for
/// the components that make spans without knowing the app's envelope: `LaunchRunner.Options`
/// (`VigilLaunch`) and `LinkTracer` (`VigilBLE`).
///
/// Get it from ``Vigil/spanRecorder``. It holds no state: a span recorded while the SDK is not
/// running is dropped (and, like every dropped span, not counted anywhere the app can see).
/// Safe from any thread; `record` only hands the span to the SDK's background queue.
public struct VigilSpanRecorder: SpanRecorder {
    /// A recorder into whichever session is running when a span arrives.
    public init() {}

    /// Hands `span` to the running session, which stores it as a `span` event dated at its
    /// start, with the session's context and tags.
    public func record(_ span: SpanPayload) {
        SessionSlot.shared.current?.recordSpan(span)
    }
}
