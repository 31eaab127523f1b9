import Foundation

/// Runs blocking work (waiting for a child process, polling a server) on a thread of its own
/// and awaits it, so that a test's long waits do not hold one of Swift concurrency's few
/// cooperative threads: on a 2-core machine two blocked tests would stall every other test's
/// `await` for as long as they wait.
public enum OwnThread {
    /// `work`'s result, computed on a new thread.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
