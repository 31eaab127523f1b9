import Foundation
import VigilCore

/// Collects what a ``NetworkRecorder`` outputs, for tests to wait on.
final class RecordedPayloads: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(payload: NetworkPayload, start: Date)] = []

    /// The recorder output appending here.
    var output: @Sendable (NetworkPayload, Date) -> Void {
        { [self] payload, start in
            lock.lock()
            items.append((payload, start))
            lock.unlock()
        }
    }

    var all: [NetworkPayload] {
        lock.lock(); defer { lock.unlock() }
        return items.map(\.payload)
    }

    /// Waits (polling every 5 ms, at most `seconds`) until `count` payloads arrived.
    func wait(for count: Int, seconds: Double = 10) async -> [NetworkPayload] {
        let deadline = Date().addingTimeInterval(seconds)
        while all.count < count && Date() < deadline {
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return all
    }

    /// The payload whose template ends with `suffix`.
    func payload(endingWith suffix: String) -> NetworkPayload? {
        all.first { $0.urlTemplate.hasSuffix(suffix) }
    }
}
