import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a ``LaunchGraphFile`` into a graph whose tasks really spend their durations: compute
/// tasks burn that much CPU time, blocking tasks sleep their thread, await tasks suspend. Used by
/// `vigil launch run` to check a simulation against real threads, and by the launch benchmark.
public enum LaunchRehearsal {
    /// The error a task marked `fails` throws at the end of its duration.
    public struct PlannedFailure: Error, CustomStringConvertible {
        /// The task's id.
        public var task: String
        public var description: String { "planned failure of \"\(task)\"" }
    }

    /// A runnable graph for `file`.
    ///
    /// - Throws: ``LaunchGraphError`` when the file's tasks do not form a valid graph.
    public static func graph(_ file: LaunchGraphFile) throws(LaunchGraphError) -> LaunchGraph {
        try LaunchGraph(file.tasks.map(task))
    }

    /// The runnable task for one file task.
    public static func task(_ entry: LaunchGraphFile.Task) -> LaunchTask {
        let spec = entry.spec
        let duration = entry.durationMs
        let fails = entry.fails
        let id = spec.id
        switch entry.work {
        case .await:
            return LaunchTask(spec: spec, work: .suspending {
                try await suspend(milliseconds: duration)
                if fails { throw PlannedFailure(task: id) }
            })
        case .block:
            return LaunchTask(spec: spec, work: .blocking {
                usleep(UInt32(min(duration * 1000, Double(UInt32.max))))
                if fails { throw PlannedFailure(task: id) }
            })
        case .compute:
            return LaunchTask(spec: spec, work: .blocking {
                burnCPU(milliseconds: duration)
                if fails { throw PlannedFailure(task: id) }
            })
        }
    }

    /// Keeps the calling thread busy until it has used `milliseconds` of CPU time (so the same
    /// amount of work whether or not other threads compete for the core).
    public static func burnCPU(milliseconds: Double) {
        let target = threadCPUNanoseconds() &+ UInt64(max(0, milliseconds) * 1_000_000)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        repeat {
            for _ in 0..<20_000 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
        } while threadCPUNanoseconds() < target
        consume(state)
    }

    /// Suspends the calling task for `milliseconds` on a strict timer (`Task.sleep` may fire a
    /// tenth of its interval late, which would distort a comparison with a blocking wait).
    ///
    /// - Throws: `CancellationError` as soon as the task is cancelled.
    public static func suspend(milliseconds: Double) async throws {
        let resumption = Resumption()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let timer = DispatchSource.makeTimerSource(flags: .strict, queue: timerQueue)
                timer.schedule(deadline: .now() + .nanoseconds(Int(min(max(0, milliseconds), 1e9) * 1_000_000)),
                               leeway: .nanoseconds(0))
                timer.setEventHandler { resumption.resume(with: .success(())) }
                resumption.arm(continuation, timer: timer)
                timer.resume()
            }
        } onCancel: {
            resumption.resume(with: .failure(CancellationError()))
        }
    }

    private static let timerQueue = DispatchQueue(label: "vigil.launch.rehearsal-timers")

    /// Resumes a continuation once, from whichever of the timer and the cancellation comes first.
    private final class Resumption: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Void, any Error>?
        private var timer: (any DispatchSourceTimer)?
        private var early: Result<Void, any Error>?

        func arm(_ continuation: CheckedContinuation<Void, any Error>, timer: any DispatchSourceTimer) {
            lock.lock()
            if let early {
                lock.unlock()
                timer.cancel()
                continuation.resume(with: early)
                return
            }
            self.continuation = continuation
            self.timer = timer
            lock.unlock()
        }

        func resume(with result: Result<Void, any Error>) {
            lock.lock()
            guard let continuation else {
                if early == nil { early = result }
                lock.unlock()
                return
            }
            self.continuation = nil
            let timer = self.timer
            self.timer = nil
            lock.unlock()
            timer?.cancel()
            continuation.resume(with: result)
        }
    }

    /// CPU time the calling thread has used, in ns.
    public static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    @inline(never)
    private static func consume(_ value: UInt64) {
        if value == 0x5EED { print("", terminator: "") }
    }
}
