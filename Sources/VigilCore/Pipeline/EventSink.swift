/// Where finished events go: the durable store in the SDK, a JSON-lines file in the sample
/// app and tests, a collecting array in unit tests.
///
/// `emit` is called from the SDK's background queue (never from the main thread) and must
/// return quickly; a sink that cannot keep an event drops it and counts it rather than
/// throwing into the caller.
public protocol EventSink: Sendable {
    /// Hands over one event.
    func emit(_ event: Event)
}

/// Receives spans from components that produce them without knowing the app's envelope
/// (`VigilLaunch`, `VigilBLE`); the SDK wraps each into a `span` event.
public protocol SpanRecorder: Sendable {
    /// Records one finished span.
    func record(_ span: SpanPayload)
}
