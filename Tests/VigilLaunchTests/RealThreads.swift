import Foundation
import Testing
import VigilCore
import VigilLaunch

/// Every test that runs the real runner on real threads: serialized, because they share the
/// main queue and the machine's cores, and timing assertions must not race each other.
@Suite("Runner on real threads", .serialized)
enum RealThreads {}

/// Runs blocking `body` on a thread of its own and awaits its result: never on Swift's
/// cooperative pool, which `async` launch tasks need while `run` blocks.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.start()
    }
}

/// Runs `body` in a block of the main queue: the main thread in an app; a test runner, whose
/// main thread waits in `dispatch_main`, drains the main queue on another thread.
func onMainQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.main.async { continuation.resume(returning: body()) }
    }
}

/// Whether the caller runs in a block of the main queue (a key of the tests' own, so the
/// runner's detection is not used to check itself).
enum MainQueueProbe {
    private static let key = DispatchSpecificKey<UInt8>()
    private static let installed: Void = DispatchQueue.main.setSpecific(key: key, value: 7)

    static func install() { _ = installed }
    static var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: key) == 7 }
}

/// Main-actor state that main-lane task bodies write to, proving their isolation.
@MainActor
enum MainActorLedger {
    static var entries: [String] = []
}

/// Counts how many probed sections run at once and logs their order.
final class ConcurrencyProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private var highest = 0
    private var order: [String] = []

    func enter(_ id: String) {
        lock.lock()
        current += 1
        highest = max(highest, current)
        order.append(id)
        lock.unlock()
    }

    func leave() {
        lock.lock()
        current -= 1
        lock.unlock()
    }

    var maximum: Int {
        lock.lock()
        defer { lock.unlock() }
        return highest
    }

    var started: [String] {
        lock.lock()
        defer { lock.unlock() }
        return order
    }
}

/// A set of facts recorded by task bodies.
final class Facts: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Bool] = [:]
    private var threads: [String: pthread_t] = [:]

    func set(_ key: String, _ value: Bool = true) {
        lock.lock()
        values[key] = value
        lock.unlock()
    }

    func get(_ key: String) -> Bool? {
        lock.lock()
        defer { lock.unlock() }
        return values[key]
    }

    func noteThread(_ key: String) {
        lock.lock()
        threads[key] = pthread_self()
        lock.unlock()
    }

    func thread(_ key: String) -> pthread_t? {
        lock.lock()
        defer { lock.unlock() }
        return threads[key]
    }
}

/// Keeps the spans a runner records.
final class SpanCollector: SpanRecorder, @unchecked Sendable {
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

/// A thrown test error with a recognisable message.
struct PlannedError: Error, CustomStringConvertible {
    var description: String
}
