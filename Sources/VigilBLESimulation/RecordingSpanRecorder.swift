import Foundation
import VigilCore

/// A ``SpanRecorder`` that keeps every span in memory, for tests and the bench (the test kit
/// in the manner of swift-log's in-memory handler). Thread-safe.
public final class RecordingSpanRecorder: SpanRecorder, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [SpanPayload] = []

    /// An empty recorder.
    public init() {}

    public func record(_ span: SpanPayload) {
        lock.lock()
        storage.append(span)
        lock.unlock()
    }

    /// Every span recorded, in order.
    public var spans: [SpanPayload] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    /// Spans named `name`.
    public func spans(named name: String) -> [SpanPayload] { spans.filter { $0.name == name } }
}
