import Foundation
import VigilCore

/// Keeps every span it is given, for `vigil launch run`.
final class CollectingSpanRecorder: SpanRecorder, @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [SpanPayload] = []

    func record(_ span: SpanPayload) {
        lock.lock()
        collected.append(span)
        lock.unlock()
    }

    var spans: [SpanPayload] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }
}
