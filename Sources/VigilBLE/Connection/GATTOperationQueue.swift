/// Serialises the link's ATT requests: one outstanding at a time (ATT is stop-and-wait for
/// requests), each with its own timeout, the rest waiting in order.
///
/// Write Commands (without response) do not pass through here; they are paced by the stack's
/// buffer instead. Confined to the connection's scheduler.
final class GATTOperationQueue {
    /// One ATT request (or request sequence the stack runs as one, like discovery).
    enum Operation: CustomStringConvertible {
        case discover(service: BLEUUID, characteristics: [BLEUUID])
        case setNotifications(BLEUUID, Bool)
        case write(BLEUUID, [UInt8])
        case readRSSI

        var description: String {
            switch self {
            case .discover(let service, _): return "discovery of \(service)"
            case .setNotifications(let uuid, let enabled): return "\(enabled ? "enabling" : "disabling") notifications on \(uuid)"
            case .write(let uuid, let bytes): return "write request of \(bytes.count) bytes to \(uuid)"
            case .readRSSI: return "RSSI read"
            }
        }
    }

    /// What an answered request produced.
    enum Outcome {
        case discovered(Set<BLEUUID>)
        case notifications(Bool)
        case wrote
        case rssi(Int)
    }

    typealias Completion = (Result<Outcome, ConnectionError>) -> Void

    private struct Entry {
        let operation: Operation
        let completion: Completion
    }

    private let scheduler: any LinkScheduler
    private let timeoutMs: Double
    private var waiting: [Entry] = []
    private var head = 0
    private var current: Entry?
    private var timer: ScheduledTask?

    /// Sends an operation to the stack.
    var issue: (Operation) -> Void = { _ in }
    /// Called after an operation timed out and its completion ran.
    var timedOut: (Operation) -> Void = { _ in }

    init(scheduler: any LinkScheduler, timeoutMs: Double) {
        self.scheduler = scheduler
        self.timeoutMs = timeoutMs
    }

    /// Operations waiting or outstanding.
    var count: Int { waiting.count - head + (current == nil ? 0 : 1) }

    /// The outstanding operation, if any.
    var outstanding: Operation? { current?.operation }

    /// Queues `operation`; `completion` runs once, with its outcome or an error.
    func enqueue(_ operation: Operation, completion: @escaping Completion) {
        waiting.append(Entry(operation: operation, completion: completion))
        startNext()
    }

    /// Offers a stack answer to the outstanding operation: `match` returns the result when the
    /// answer belongs to it. Returns whether it did (late answers to timed-out requests do not).
    @discardableResult
    func resolve(_ match: (Operation) -> Result<Outcome, ConnectionError>?) -> Bool {
        guard let entry = current, let result = match(entry.operation) else { return false }
        current = nil
        timer?.cancel()
        timer = nil
        entry.completion(result)
        startNext()
        return true
    }

    /// Fails the outstanding and every waiting operation with `error` (the link went down).
    func failAll(_ error: ConnectionError) {
        timer?.cancel()
        timer = nil
        var entries: [Entry] = []
        if let current { entries.append(current) }
        entries.append(contentsOf: waiting[head...])
        current = nil
        waiting.removeAll()
        head = 0
        for entry in entries { entry.completion(.failure(error)) }
    }

    private func startNext() {
        guard current == nil, head < waiting.count else { return }
        let entry = waiting[head]
        head += 1
        if head > 64 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        current = entry
        timer = scheduler.schedule(afterMilliseconds: timeoutMs, label: "gatt request timeout") { [weak self] in
            self?.fireTimeout()
        }
        issue(entry.operation)
    }

    private func fireTimeout() {
        guard let entry = current else { return }
        current = nil
        timer = nil
        entry.completion(.failure(.operationTimedOut(operation: entry.operation.description, afterMs: timeoutMs)))
        timedOut(entry.operation)
    }
}
