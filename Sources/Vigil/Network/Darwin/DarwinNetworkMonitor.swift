#if canImport(Darwin) && !canImport(FoundationNetworking)
import Foundation
import ObjectiveC
import VigilCore

/// The Apple platforms' network adapter: learns of each task from the `resume` hook (every
/// system) and, for delegate classes the app names, from `urlSession(_:didCreateTask:)`
/// (iOS 16+, where `async` calls create their tasks); receives `URLSessionTaskMetrics` through a
/// task delegate of its own (set only when the task has none) or the named delegate
/// classes; learns of the end by observing the task's `state`. Facts are merged by task in a
/// ``NetworkTaskLedger``; nothing holds a task once it completed.
///
/// Thin by design: every decision is ``NetworkRecorder``'s and the ledger's, tested on Linux.
/// Not compiled on Linux; type-checked against the iOS 17 / macOS 14 SDKs (docs/network.md).
final class DarwinNetworkMonitor: @unchecked Sendable {
    static let shared = DarwinNetworkMonitor()

    /// A task's identity while it runs: the object (never retained) and its identifier.
    struct TaskKey: Hashable {
        let object: ObjectIdentifier
        let identifier: Int

        init(_ task: URLSessionTask) {
            object = ObjectIdentifier(task)
            identifier = task.taskIdentifier
        }
    }

    /// Metrics come on the delegate queue, the end through KVO on the session's queue; a
    /// completed task waits this long for its metrics.
    private static let metricsWaitMs = 10_000.0

    private let lock = NSLock()
    private var recorder: NetworkRecorder?
    private var ledger = NetworkTaskLedger<TaskKey>(capacity: 1024)
    private var stateObservations: [TaskKey: NSKeyValueObservation] = [:]
    private var withOwnDelegate: Set<TaskKey> = []
    private let excludedSessions = NSHashTable<URLSession>.weakObjects()
    private var hookedDelegateClasses: Set<ObjectIdentifier> = []

    /// Points the adapter at `recorder` and installs the `resume` hook (once per process).
    func install(recorder: NetworkRecorder) {
        lock.lock()
        self.recorder = recorder
        ledger = NetworkTaskLedger(capacity: recorder.configuration.maximumInFlight)
        lock.unlock()
        URLSessionResumeHook.install { task in DarwinNetworkMonitor.shared.taskStarting(task, session: nil) }
    }

    /// Leaves `session`'s requests alone from now on.
    func exclude(_ session: URLSession) {
        lock.lock(); excludedSessions.add(session); lock.unlock()
    }

    /// Hooks `delegateClass` (the app's session delegate) for task creation and metrics.
    func instrument(delegateClass: AnyClass) -> Bool {
        lock.lock()
        let fresh = hookedDelegateClasses.insert(ObjectIdentifier(delegateClass)).inserted
        lock.unlock()
        return fresh ? SessionDelegateClassHook.install(on: delegateClass) : true
    }

    private func isExcluded(_ session: URLSession) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return excludedSessions.contains(session)
    }

    // MARK: - Hooks

    /// A task is about to run (its `resume`, or its creation in a hooked delegate class).
    func taskStarting(_ task: URLSessionTask, session: URLSession?) {
        lock.lock()
        let recorder = self.recorder
        lock.unlock()
        guard let recorder, recorder.isActive else { return }
        if let session, isExcluded(session) { return }
        guard let request = task.currentRequest ?? task.originalRequest, let url = request.url,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              !recorder.isExcluded(host: url.host?.lowercased() ?? "") else { return }
        let key = TaskKey(task)
        lock.lock()
        let known = ledger.contains(key)
        lock.unlock()
        guard !known else { return }

        let traceParent = request.value(forHTTPHeaderField: TraceParent.headerName).flatMap(TraceParent.init(header:))
        let observation = NetworkObservation(request: request, response: nil, error: nil, bytesSent: 0, bytesReceived: 0,
                                             start: recorder.clock.wallNow(), marks: NetworkTransactionMarks(end: 0),
                                             traceParent: traceParent, recorder: recorder)
        var ownDelegate = false
        // The package's oldest systems (iOS 15, macOS 13) all have task delegates.
        if task.delegate == nil {
            // A task delegate hears of the metrics before the session's delegate, which still
            // gets them: nothing of the app's is replaced.
            task.delegate = TaskMetricsDelegate.shared
            ownDelegate = true
        }
        let stateObservation = task.observe(\.state, options: [.new]) { task, _ in
            if task.state == .completed { DarwinNetworkMonitor.shared.taskCompleted(task) }
        }
        lock.lock()
        ledger.begin(key, observation: observation, at: recorder.clock.monotonicNow())
        if ownDelegate { withOwnDelegate.insert(key) }
        let replaced = stateObservations.updateValue(stateObservation, forKey: key)
        lock.unlock()
        replaced?.invalidate()
    }

    /// The task's metrics arrived (Vigil's task delegate or a hooked delegate class).
    func collected(_ metrics: URLSessionTaskMetrics, task: URLSessionTask, session: URLSession) {
        let key = TaskKey(task)
        if isExcluded(session) {
            forget(key)
            return
        }
        let times = TransactionTimes(metrics)
        let transaction = metrics.transactionMetrics.last
        var sent: Int64 = 0
        var received: Int64 = 0
        for item in metrics.transactionMetrics {
            sent += item.countOfRequestHeaderBytesSent + item.countOfRequestBodyBytesSent
            received += item.countOfResponseHeaderBytesReceived + item.countOfResponseBodyBytesReceived
        }
        lock.lock()
        let recorder = self.recorder
        let finished = ledger.metrics(key) { observation in
            observation.marks = times.marks
            observation.reusedConnection = transaction?.isReusedConnection
            observation.networkProtocol = transaction?.networkProtocolName
            observation.bytesSent = max(observation.bytesSent, sent)
            observation.bytesReceived = max(observation.bytesReceived, received)
        }
        lock.unlock()
        if let finished { recorder?.record(finished) }
    }

    /// The task reached `.completed` (KVO).
    func taskCompleted(_ task: URLSessionTask) {
        let key = TaskKey(task)
        let response = task.response
        let error = task.error
        let sent = task.countOfBytesSent
        let received = task.countOfBytesReceived
        lock.lock()
        guard let recorder else { lock.unlock(); return }
        let now = recorder.clock.monotonicNow()
        let observation = stateObservations.removeValue(forKey: key)
        let waits = withOwnDelegate.remove(key) != nil
        let finished = ledger.complete(key, at: now, waitForMetrics: waits) { item in
            let http = response as? HTTPURLResponse
            item.status = error == nil ? http?.statusCode : nil
            item.failure = error.map { NetworkFailure(domain: ($0 as NSError).domain, code: ($0 as NSError).code) }
            item.bytesSent = max(item.bytesSent, sent)
            item.bytesReceived = max(item.bytesReceived, received)
            if recorder.recordsResponseHeaders, let http {
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { item.responseHeaders[name] = value }
                }
            }
        }
        let expired = ledger.expire(at: now, maximumWaitMs: Self.metricsWaitMs)
        lock.unlock()
        observation?.invalidate()
        for item in (finished.map { [$0] } ?? []) + expired { recorder.record(item) }
    }

    private func forget(_ key: TaskKey) {
        lock.lock()
        ledger.discard(key)
        withOwnDelegate.remove(key)
        let observation = stateObservations.removeValue(forKey: key)
        lock.unlock()
        observation?.invalidate()
    }
}

extension TransactionTimes {
    /// The task interval and the last transaction's dates of `metrics`.
    init(_ metrics: URLSessionTaskMetrics) {
        let last = metrics.transactionMetrics.last
        self.init(taskStart: metrics.taskInterval.start, taskEnd: metrics.taskInterval.end,
                  domainLookupStart: last?.domainLookupStartDate, domainLookupEnd: last?.domainLookupEndDate,
                  connectStart: last?.connectStartDate, connectEnd: last?.connectEndDate,
                  secureConnectionStart: last?.secureConnectionStartDate,
                  secureConnectionEnd: last?.secureConnectionEndDate,
                  requestStart: last?.requestStartDate, requestEnd: last?.requestEndDate,
                  responseStart: last?.responseStartDate, responseEnd: last?.responseEndDate)
    }
}
#endif
