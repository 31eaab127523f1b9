import Foundation

/// Commits the work of concurrent callers together: a caller that finds no commit running
/// takes every item waiting (its own included) and commits them in one go, while the callers
/// that arrive meanwhile wait and are taken by the next commit.
///
/// With one writer for a whole SQLite file, requests queue for the write lock anyway; committing
/// what queued in one transaction writes each shared page (index leaves, the issue and roll-up
/// rows every batch touches) once per group instead of once per request. A lone caller commits
/// at once, so light load adds no latency.
///
/// A group whose commit fails is committed again item by item, so one bad item fails only its
/// own caller. Threading: safe to share; ``submit(_:commit:)`` blocks until the item is committed.
final class GroupCommitQueue<Item, Output>: @unchecked Sendable {
    /// An item waiting, and what its commit gave (guarded by ``condition``).
    private final class Entry {
        let item: Item
        var result: Result<Output, any Error>?

        init(item: Item) {
            self.item = item
        }
    }

    private let condition = NSCondition()
    private var waiting: [Entry] = []
    private var committing = false
    private let maxItems: Int

    /// A queue committing at most `maxItems` items together.
    init(maxItems: Int = 32) {
        self.maxItems = max(1, maxItems)
    }

    /// Items waiting for a commit (not the ones being committed); for tests.
    var waitingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting.count
    }

    /// Commits `item`, possibly with other callers' items, and returns its output.
    ///
    /// `commit` receives the items of one group in arrival order and returns one output per item,
    /// in that order; it runs on whichever caller's thread leads the group, so every caller must
    /// pass the same logic.
    func submit(_ item: Item, commit: ([Item]) throws -> [Output]) throws -> Output {
        let entry = Entry(item: item)
        condition.lock()
        waiting.append(entry)
        while entry.result == nil {
            if committing {
                condition.wait()
                continue
            }
            committing = true
            let group = Array(waiting.prefix(maxItems))
            waiting.removeFirst(group.count)
            condition.unlock()
            let results = Self.run(group.map(\.item), commit: commit)
            condition.lock()
            for (member, result) in zip(group, results) { member.result = result }
            committing = false
            condition.broadcast()
        }
        condition.unlock()
        // Set in the loop above, under the lock.
        switch entry.result {
        case .success(let output): return output
        case .failure(let error): throw error
        case nil: preconditionFailure("the loop ends only with a result")
        }
    }

    /// Commits `items` together; when that fails and there are several, each alone.
    private static func run(_ items: [Item], commit: ([Item]) throws -> [Output]) -> [Result<Output, any Error>] {
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

/// A commit function broke the one-output-per-item contract of ``GroupCommitQueue``.
struct GroupCommitError: Error, CustomStringConvertible {
    /// What was wrong.
    var message: String

    var description: String { "group commit: \(message)" }
}
