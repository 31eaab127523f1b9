import Foundation
import Synchronization

/// One background thread that runs a step, then waits up to a poll interval or until
/// ``wake()``, until ``stop()``. The alert evaluator and the webhook deliverer run on one each.
///
/// Threading: safe to share.
final class BackgroundLoop: Sendable {
    private let name: String
    private let condition = NSCondition()
    private let state = Mutex(State())
    private let finished = DispatchGroup()

    private struct State {
        var running = false
        var wakeups = 0
    }

    init(name: String) {
        self.name = name
    }

    /// Starts the thread; `step` returns true when more work is waiting (run again at once).
    func start(pollSeconds: Double, step: @escaping @Sendable () -> Bool) {
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard started else { return }
        finished.enter()
        let thread = Thread { [self] in
            while isRunning {
                if step() { continue }
                condition.lock()
                let woken = state.withLock { state -> Bool in
                    defer { state.wakeups = 0 }
                    return state.wakeups > 0
                }
                if !woken && isRunning { _ = condition.wait(until: Date().addingTimeInterval(pollSeconds)) }
                condition.unlock()
            }
            finished.leave()
        }
        thread.name = name
        thread.start()
    }

    /// Runs the next step now instead of after the poll interval.
    func wake() {
        condition.lock()
        state.withLock { $0.wakeups += 1 }
        condition.signal()
        condition.unlock()
    }

    /// Stops after the current step and waits for the thread.
    func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.running = false }
            return state.running
        }
        guard wasRunning else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private var isRunning: Bool { state.withLock { $0.running } }
}
