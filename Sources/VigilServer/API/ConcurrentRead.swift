import Dispatch
import Synchronization

/// One of several reads that do not depend on each other, run at once with its siblings by
/// `[reads].runAtOnce()` so that a page asking several independent questions waits for the slowest of
/// them instead of for their sum.
///
/// Each read takes its own connection from the store's reader pool (SQLite's WAL readers and
/// PostgreSQL's pool do not block each other). Threading: `runAtOnce()` blocks its caller and runs
/// the reads on Dispatch's worker threads, at most one per core at a time, so a burst of page
/// requests does not multiply threads. Cost: one closure and one lock per read.
final class ConcurrentRead<Value: Sendable>: Sendable, ConcurrentReadable {
    private let body: @Sendable () throws -> Value
    private let result = Mutex<Result<Value, any Error>?>(nil)

    /// A read that `body` performs when `runAtOnce()` runs it.
    init(_ body: @escaping @Sendable () throws -> Value) {
        self.body = body
    }

    /// What the read returned, or the error it threw. Call after `runAtOnce()`; a read that was
    /// never run is run now, on the caller's thread.
    func value() throws -> Value {
        if result.withLock({ $0 == nil }) { perform() }
        return try result.withLock { $0! }.get()
    }

    /// Runs the read and keeps its outcome.
    func perform() {
        let outcome = Result { try body() }
        result.withLock { $0 = outcome }
    }
}

/// A read that `runAtOnce()` can run beside reads of other result types.
protocol ConcurrentReadable: Sendable {
    /// Runs the read and keeps its outcome.
    func perform()
}

extension Array where Element == any ConcurrentReadable {
    /// Runs every read at once and returns when each has finished (whether or not it threw);
    /// their outcomes are then read with ``ConcurrentRead/value()``.
    func runAtOnce() {
        if count == 1 {
            self[0].perform()
            return
        }
        let reads = self
        DispatchQueue.concurrentPerform(iterations: reads.count) { index in reads[index].perform() }
    }
}
