import Foundation

/// Commits the work of concurrent callers together, on one committer thread: a caller queues
/// its item and waits; the committer takes every item waiting (at most `maxItems`) and commits
/// them in one go, while the callers that arrive meanwhile queue for the next commit.
///
/// With one writer for a whole SQLite file, requests queue for the write lock anyway; committing
/// what queued in one transaction writes each shared page (index leaves, the issue and roll-up
/// rows every batch touches) once per group instead of once per request.
///
/// The commits run on a thread of their own rather than on a caller's: the callers are HTTP
/// threads that run at a lower priority while they decode and analyze (see
/// ``HTTPServerConfiguration/handlerNice``), and the one serial step of ingest must not queue
/// for the CPU behind them. The thread is started by `init` — so it has the priority of the
/// thread that makes the queue, not of a caller (a Linux thread inherits its creator's nice
/// value) — parks while there is nothing to commit, and ends with ``stop()`` or when the queue
/// is released.
///
/// A group whose commit fails is committed again item by item, so one bad item fails only its
/// own caller. Threading: safe to share; ``submit(_:commit:)`` blocks until the item is committed.
final class GroupCommitQueue<Item, Output>: @unchecked Sendable {
    /// A commit: the items of one group in arrival order in, one output per item out.
    typealias Commit = @Sendable ([Item]) throws -> [Output]

    private let core: Core

    /// A queue committing at most `maxItems` items together on a thread named `name`.
    init(maxItems: Int = 32, name: String = "vigil-commit") {
        core = Core(maxItems: max(1, maxItems))
        let core = self.core
        let thread = Thread { core.run() }
        thread.name = name
        thread.start()
    }

    deinit {
        core.stop()
    }

    /// Items waiting for a commit (not the ones being committed); for tests.
    var waitingCount: Int { core.waitingCount }

    /// Whether the committer thread is alive; for tests.
    var hasCommitter: Bool { core.isRunning }

    /// Ends the committer thread once the items already queued are committed; items submitted
    /// afterwards fail with ``GroupCommitError``. Idempotent.
    func stop() {
        core.stop()
    }

    /// Commits `item`, possibly with other callers' items, and returns its output.
    ///
    /// `commit` receives the items of one group in arrival order and returns one output per item,
    /// in that order; it runs on the committer thread with the function the group's first caller
    /// passed, so every caller must pass the same logic.
    func submit(_ item: Item, commit: @escaping Commit) throws -> Output {
        try core.submit(item, commit: commit)
    }

    /// The state the committer thread shares with the callers; the thread holds this, not the
    /// queue, so that releasing the queue stops it.
    private final class Core: @unchecked Sendable {
        /// An item waiting, and what its commit gave: set by the committer, which then signals
        /// `done` — the one thread that waits on it.
        final class Entry {
            let item: Item
            let commit: Commit
            var result: Result<Output, any Error>?
            let done = DispatchSemaphore(value: 0)

            init(item: Item, commit: @escaping Commit) {
                self.item = item
                self.commit = commit
            }
        }

        /// Guards the state below; only the committer thread waits on it.
        private let condition = NSCondition()
        private var waiting: [Entry] = []
        private var stopping = false
        private var running = true
        private let maxItems: Int

        init(maxItems: Int) {
            self.maxItems = maxItems
        }

        var waitingCount: Int {
            condition.lock()
            defer { condition.unlock() }
            return waiting.count
        }

        var isRunning: Bool {
            condition.lock()
            defer { condition.unlock() }
            return running
        }

        func stop() {
            condition.lock()
            stopping = true
            condition.broadcast()
            condition.unlock()
        }

        func submit(_ item: Item, commit: @escaping Commit) throws -> Output {
            let entry = Entry(item: item, commit: commit)
            condition.lock()
            guard !stopping else {
                condition.unlock()
                throw GroupCommitError(message: "the queue is stopped")
            }
            waiting.append(entry)
            condition.signal()
            condition.unlock()
            // A caller wakes only for its own result, not for every arrival and commit.
            entry.done.wait()
            // Set by the committer before it signalled `done`.
            switch entry.result {
            case .success(let output): return output
            case .failure(let error): throw error
            case nil: preconditionFailure("the loop ends only with a result")
            }
        }

        /// The committer thread: commits groups until stopped with nothing left waiting.
        func run() {
            condition.lock()
            while true {
                if waiting.isEmpty {
                    if stopping { break }
                    condition.wait()
                    continue
                }
                let group = Array(waiting.prefix(maxItems))
                waiting.removeFirst(group.count)
                condition.unlock()
                let results = Self.commit(group.map(\.item), with: group[0].commit)
                for (member, result) in zip(group, results) {
                    member.result = result
                    member.done.signal()
                }
                condition.lock()
            }
            running = false
            condition.unlock()
        }

        /// Commits `items` together; when that fails and there are several, each alone.
        private static func commit(_ items: [Item], with commit: Commit) -> [Result<Output, any Error>] {
            do {
                let outputs = try commit(items)
                guard outputs.count == items.count else {
                    throw GroupCommitError(message: "commit returned \(outputs.count) outputs for \(items.count) items")
                }
                return outputs.map { .success($0) }
            } catch {
                guard items.count > 1 else { return [.failure(error)] }
                return items.map { item in
                    Result {
                        let outputs = try commit([item])
                        guard let output = outputs.first, outputs.count == 1 else {
                            throw GroupCommitError(message: "commit returned \(outputs.count) outputs for 1 item")
                        }
                        return output
                    }
                }
            }
        }
    }
}

/// A commit function broke the one-output-per-item contract of ``GroupCommitQueue``, or the
/// queue was stopped.
struct GroupCommitError: Error, CustomStringConvertible {
    /// What was wrong.
    var message: String

    var description: String { "group commit: \(message)" }
}
