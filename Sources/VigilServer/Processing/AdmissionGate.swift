import Foundation

/// Lets at most `width` callers run a section at once and admits the others in arrival order.
///
/// Ingest is CPU work (decode, validate, analyze) done on the HTTP threads, one per connection.
/// Left alone, eight of them computing on two cores keep every core's run queue four deep and
/// spread each request's work over many time slices. Behind a gate as wide as the cores, the
/// threads that wait for their turn sleep, each admitted request computes at full speed, and the
/// queue ahead of it is all it waits for (measured under the server benchmark: the analysis
/// phase's p99 halved). Threading: safe to share; ``run(_:)`` blocks while full.
final class AdmissionGate: @unchecked Sendable {
    private let condition = NSCondition()
    /// How many callers may be inside at once.
    let width: Int
    private var inside = 0
    private var nextTicket: UInt64 = 0
    private var nowServing: UInt64 = 0

    /// A gate admitting `width` callers at once (at least one).
    init(width: Int) {
        self.width = max(1, width)
    }

    /// Callers inside now; for tests.
    var occupancy: Int {
        condition.lock()
        defer { condition.unlock() }
        return inside
    }

    /// Callers waiting to be let in; for tests.
    var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return Int(nextTicket &- nowServing)
    }

    /// Runs `body` once fewer than `width` callers are inside and every earlier caller was
    /// admitted; returns what it returns.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        let ticket = nextTicket
        nextTicket &+= 1
        while ticket != nowServing || inside >= width { condition.wait() }
        nowServing &+= 1
        inside += 1
        // The next ticket may fit too.
        condition.broadcast()
        condition.unlock()
        defer {
            condition.lock()
            inside -= 1
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
