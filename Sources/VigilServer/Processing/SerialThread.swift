import Foundation

/// One thread of its own that runs the closures given to ``run(_:)`` one after another, in
/// order. Like ``GroupCommitQueue``'s committer, the thread is started by `init`, so it has the
/// priority of the thread that makes it (a Linux thread inherits its creator's nice value) —
/// not that of the HTTP threads, which run at a lower one — and it ends with ``stop()`` or when
/// the object is released, once the work already given has run.
///
/// Threading: ``run(_:)`` from any thread; returns at once.
final class SerialThread: Sendable {
    private let core = Core()

    /// A thread named `name`.
    init(name: String) {
        // The thread holds the core, not this object, so that releasing it stops the thread.
        let core = self.core
        let thread = Thread {
            while let next = core.next() { next() }
        }
        thread.name = name
        thread.start()
    }

    deinit {
        core.stop()
    }

    /// Runs `body` on the thread after what was given before; once stopped, on the caller's
    /// thread instead, so that nothing given is dropped.
    func run(_ body: @escaping @Sendable () -> Void) {
        if !core.add(body) { body() }
    }

    /// Ends the thread once the work already given has run. Idempotent.
    func stop() {
        core.stop()
    }

    /// The work waiting, shared by the object and its thread.
    private final class Core: @unchecked Sendable {
        /// Guards the two below.
        private let condition = NSCondition()
        private var work: [@Sendable () -> Void] = []
        private var stopping = false

        /// Queues `body`; false when stopped.
        func add(_ body: @escaping @Sendable () -> Void) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            guard !stopping else { return false }
            work.append(body)
            condition.signal()
            return true
        }

        func stop() {
            condition.lock()
            stopping = true
            condition.broadcast()
            condition.unlock()
        }

        /// The next closure, waiting for one; nil when stopped with nothing left.
        func next() -> (@Sendable () -> Void)? {
            condition.lock()
            defer { condition.unlock() }
            while work.isEmpty {
                if stopping { return nil }
                condition.wait()
            }
            return work.removeFirst()
        }
    }
}
