import Foundation
import VigilCore

/// Runs a ``LaunchGraph``: dependencies first, main-lane tasks on the main thread, the rest on
/// a pool no wider than the cores, each task measured and recorded as a span.
///
/// Typical use, in `application(_:didFinishLaunchingWithOptions:)` on the main thread:
///
/// ```swift
/// let runner = LaunchRunner(graph: graph, options: .init(spanRecorder: recorder))
/// let result = runner.run(until: .firstFrame, deadline: .milliseconds(800))
/// // … first frame on screen:
/// runner.reportFirstFrame()
/// ```
///
/// Threads: `run` blocks its caller until the `beforeFirstFrame` tasks settle or the deadline
/// passes. When the caller is the main thread (or the main queue, as in a test process), it
/// runs main-lane tasks itself while it waits; otherwise, and after `run` returns, main-lane
/// tasks go through `DispatchQueue.main`, and `idle` main-lane tasks run one per idle turn of
/// the main run loop. Synchronous tasks run on up to `cores` pool threads, created when needed
/// and ended when nothing runs; a main-lane task holds one of the same `cores` slots, so no
/// more than `cores` synchronous tasks run at once. `async` tasks run as Swift tasks and hold
/// no slot. On Linux, when the slots are all the cores the caller may use, each synchronous
/// task is pinned to a core of its own while it runs (``Options/pinsTasksToCores``).
///
/// Nothing is interrupted: at the deadline `run` returns and lists what did not finish, and
/// the tasks carry on; a task past its timeout is reported as timed out and its dependents are
/// skipped, but its work runs to its end (an `async` task is sent cooperative cancellation).
/// Spans are handed to the recorder on a private serial queue, never on the main thread.
///
/// Deadlines and timeouts are measured on the real monotonic clock (they make threads wait);
/// the injected ``Options/clock`` stamps the measurements only.
public final class LaunchRunner: @unchecked Sendable {
    /// How a runner behaves.
    public struct Options: Sendable {
        /// Upper bound on concurrently running synchronous tasks; clamped to 1…cores.
        public var maxConcurrency: Int?
        /// Stamps ready, start and end times.
        public var clock: any VigilClock
        /// Receives every task span and the root span.
        public var spanRecorder: (any SpanRecorder)?
        /// The launch's trace id; a random one when nil.
        public var traceId: String?
        /// Tells when the main run loop is idle; a ``MainRunLoopIdleSignal`` when nil.
        public var idleSignal: (any LaunchIdleSignal)?
        /// Whether each synchronous task runs bound to a core of its own while it runs, where
        /// the platform allows it (Linux) and the runner uses every core the calling thread
        /// may run on. Without it, Linux can leave two tasks sharing one core for a time slice
        /// while another core idles; the launch benchmark measures the difference.
        public var pinsTasksToCores: Bool

        /// Options; every parameter has a default suitable for an app.
        public init(maxConcurrency: Int? = nil, clock: any VigilClock = SystemClock(),
                    spanRecorder: (any SpanRecorder)? = nil, traceId: String? = nil,
                    idleSignal: (any LaunchIdleSignal)? = nil, pinsTasksToCores: Bool = true) {
            self.maxConcurrency = maxConcurrency
            self.pinsTasksToCores = pinsTasksToCores
            self.clock = clock
            self.spanRecorder = spanRecorder
            self.traceId = traceId
            self.idleSignal = idleSignal
        }
    }

    /// What the runner knows of one task's timing.
    private struct Timing {
        var ready: MonotonicInstant?
        var start: MonotonicInstant?
        var end: MonotonicInstant?
        var settled: MonotonicInstant?
        var worker: String?
        var onMainThread: Bool?
        var spanRecorded = false
    }

    /// A thread blocked in `wait`: woken through its own semaphore, and only when its
    /// condition holds or (on the main lane) a main-lane task waits for it.
    private final class Waiter {
        let pumps: Bool
        let done: () -> Bool
        let semaphore = DispatchSemaphore(value: 0)
        /// Set under `condition` while the thread sleeps and no wake-up has been sent.
        var asleep = false

        init(pumps: Bool, done: @escaping () -> Bool) {
            self.pumps = pumps
            self.done = done
        }
    }

    /// The graph being run.
    public let graph: LaunchGraph
    /// How many synchronous tasks may run at once (the main lane's included).
    public let cores: Int
    /// The launch's trace id.
    public let traceId: String
    /// The root span's id, parent of every task span.
    public let rootSpanId: String

    private let clock: any VigilClock
    private let spanRecorder: (any SpanRecorder)?
    private let idleSignal: any LaunchIdleSignal
    private let pinning: LaunchCorePinning
    private let condition = NSCondition()
    private let timeoutQueue = DispatchQueue(label: "vigil.launch.timeouts")
    private let spanQueue = DispatchQueue(label: "vigil.launch.spans")

    // Everything below is guarded by `condition`.
    private var schedule: LaunchSchedule
    private var timings: [Timing]
    private var poolQueue: [Int] = []
    private var workerNumbers: Set<Int> = []
    private var mainPending: Int?
    private var pumpers = 0
    private var idleWorkers = 0
    /// Which of the pinning's cores a running task holds; empty when pinning is off.
    private var coreTaken: [Bool]
    private var taskCore: [Int?]
    private var waiters: [Waiter] = []
    private var runStarted = false
    private var startInstant = MonotonicInstant(nanoseconds: 0)
    private var startWall = Date(timeIntervalSince1970: 0)
    private var milestone = LaunchMilestone.firstFrame
    private var firstFrameReported = false
    private var idleOpened = false
    private var idleSignalActive = false
    private var asyncTasks: [Int: Task<Void, Never>] = [:]
    private var spans: [SpanPayload] = []
    private var rootSpanRecorded = false

    /// A runner for `graph`; nothing runs until ``run(until:deadline:)``.
    public init(graph: LaunchGraph, options: Options = Options()) {
        self.graph = graph
        let available = max(1, ProcessInfo.processInfo.activeProcessorCount)
        cores = max(1, min(options.maxConcurrency ?? available, available))
        clock = options.clock
        spanRecorder = options.spanRecorder
        idleSignal = options.idleSignal ?? MainRunLoopIdleSignal()
        traceId = options.traceId ?? TraceIdentifier.traceId()
        rootSpanId = TraceIdentifier.spanId()
        schedule = LaunchSchedule(plan: graph.plan, slots: cores)
        timings = Array(repeating: Timing(), count: graph.plan.count)
        pinning = LaunchCorePinning(slots: cores, enabled: options.pinsTasksToCores)
        coreTaken = Array(repeating: false, count: pinning.slotCores.count)
        taskCore = Array(repeating: nil, count: graph.plan.count)
        _ = LaunchRunner.markMainQueue
    }

    /// Runs the graph until `milestone` or `deadline` (from now), whichever comes first, and
    /// returns what happened. Call it once.
    ///
    /// At the deadline nothing is cancelled: unfinished tasks keep running and are listed in
    /// ``LaunchRunResult/unfinished``. Pass `.never` to wait as long as it takes.
    @discardableResult
    public func run(until milestone: LaunchMilestone = .firstFrame, deadline: DispatchTimeInterval) -> LaunchRunResult {
        condition.lock()
        precondition(!runStarted, "LaunchRunner.run(until:deadline:) may be called once")
        runStarted = true
        self.milestone = milestone
        startInstant = clock.monotonicNow()
        startWall = clock.wallNow()
        schedule.open(.beforeFirstFrame)
        var startIdle = false
        if milestone == .allPhases {
            firstFrameReported = true
            idleOpened = true
            schedule.open(.afterFirstFrame)
            schedule.open(.idle)
        } else if firstFrameReported {
            startIdle = beginAfterFirstFrame()
        }
        update()
        condition.unlock()
        if startIdle { startIdleSignal() }

        let reached = wait(deadline: deadline) { [self] in milestoneReached }

        condition.lock()
        let result = makeResult(reached: reached)
        let root = rootSpanRecorded ? nil : makeRootSpan(result)
        if let root {
            rootSpanRecorded = true
            deliver(root)
        }
        condition.unlock()
        return result
    }

    /// Tells the runner the app showed its first frame: `afterFirstFrame` tasks may start, and
    /// `idle` tasks will start at the main run loop's next idle moment. Thread-safe; later
    /// calls do nothing.
    public func reportFirstFrame() {
        condition.lock()
        guard !firstFrameReported else {
            condition.unlock()
            return
        }
        firstFrameReported = true
        guard runStarted else {
            // `run` begins the later phases when it starts.
            condition.unlock()
            return
        }
        let startIdle = beginAfterFirstFrame()
        update()
        condition.unlock()
        if startIdle { startIdleSignal() }
    }

    /// Opens the after-first-frame phase; returns whether the idle signal must be started
    /// (outside the lock). Under `condition`.
    private func beginAfterFirstFrame() -> Bool {
        schedule.open(.afterFirstFrame)
        let startIdle = !idleOpened && graph.plan.specs.contains { $0.phase == .idle }
        if startIdle { idleSignalActive = true }
        return startIdle
    }

    private func startIdleSignal() {
        idleSignal.start { [weak self] in self?.idleTurn() }
    }

    deinit {
        // A runner dropped before its idle tasks ran must not leave its observer behind.
        if idleSignalActive { idleSignal.stop() }
    }

    /// Waits until every task of the phases begun so far has settled and returned (timed-out
    /// tasks included), or `timeout` passes; then hands the pending spans to the recorder and
    /// returns a snapshot. On the main thread it runs main-lane tasks while it waits.
    @discardableResult
    public func waitForCompletion(timeout: DispatchTimeInterval) -> LaunchRunResult {
        _ = wait(deadline: timeout) { [self] in
            schedule.runningCount == 0 && LaunchPhase.allCases.allSatisfy { !schedule.isOpen($0) || schedule.isSettled($0) }
        }
        spanQueue.sync {}
        return snapshot()
    }

    /// Whether every task of every phase has settled and returned.
    public var isComplete: Bool {
        condition.lock()
        defer { condition.unlock() }
        return schedule.isComplete
    }

    /// The run as it stands now.
    public func snapshot() -> LaunchRunResult {
        condition.lock()
        defer { condition.unlock() }
        return makeResult(reached: runStarted && milestoneReached)
    }

    // MARK: - Scheduling (all under `condition`)

    private var milestoneReached: Bool {
        switch milestone {
        case .firstFrame: return schedule.isSettled(.beforeFirstFrame)
        case .allPhases: return LaunchPhase.allCases.allSatisfy { schedule.isSettled($0) }
        }
    }

    /// Timestamps what the schedule reports, hands out what may start and wakes the waiters;
    /// `kept` queued pool tasks are left to the calling pool thread.
    private func update(keeping kept: Int = 0) {
        let now = clock.monotonicNow()
        for notice in schedule.drainNotices() {
            switch notice {
            case .ready(let task):
                timings[task].ready = now
            case .skipped(let task):
                timings[task].settled = now
                recordSpan(task)
            }
        }
        for assignment in schedule.dispatch() {
            route(assignment)
        }
        if idleSignalActive, idleOpened, schedule.isSettled(.idle) {
            idleSignalActive = false
            idleSignal.stop()
        }
        wakeWaiters(keeping: kept)
    }

    /// Wakes only the threads that have something to do: a pool thread per queued task (all of
    /// them once nothing runs, so they end), and a waiter whose condition now holds or, on the
    /// main lane, that has a main-lane task to run. Every wake-up of an idle thread takes a
    /// core from a running task for a moment, so a state change that concerns nobody wakes
    /// nobody. Under `condition`.
    private func wakeWaiters(keeping kept: Int) {
        if schedule.runningCount == 0 {
            condition.broadcast()
        } else {
            for _ in 0..<max(0, min(poolQueue.count - kept, idleWorkers)) { condition.signal() }
        }
        for waiter in waiters where waiter.asleep {
            if (waiter.pumps && mainPending != nil) || waiter.done() {
                waiter.asleep = false
                waiter.semaphore.signal()
            }
        }
    }

    private func route(_ assignment: LaunchSchedule.Assignment) {
        switch assignment {
        case .pool(let task):
            poolQueue.append(task)
            var number = 1
            while workerNumbers.count < cores {
                while workerNumbers.contains(number) { number += 1 }
                workerNumbers.insert(number)
                let thread = Thread { [self, number] in workerLoop(number: number) }
                thread.name = "vigil.launch.pool-\(number)"
                thread.qualityOfService = .userInitiated
                thread.start()
            }
        case .main(let task):
            mainPending = task
            if pumpers > 0 {
                // The waiting caller picks it up (woken in wakeWaiters()).
            } else if graph.plan.specs[task].phase == .idle, idleSignalActive {
                idleSignal.requestTurn()
            } else {
                DispatchQueue.main.async { [self] in drainMainLane() }
            }
        case .suspending(let task):
            asyncTasks[task] = Task.detached(priority: .userInitiated) { [self] in await executeSuspending(task) }
        }
    }

    /// Blocks until `done()` (evaluated under the lock) or the deadline; runs main-lane tasks
    /// meanwhile when called on the main thread or queue. Returns `done()`.
    private func wait(deadline: DispatchTimeInterval, until done: @escaping () -> Bool) -> Bool {
        let limit = deadline.launchMilliseconds.map {
            DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, min($0, 1e12)) * 1_000_000)
        }
        condition.lock()
        let pumps = LaunchRunner.isOnMainLane
        if pumps { pumpers += 1 }
        let waiter = Waiter(pumps: pumps, done: done)
        waiters.append(waiter)
        var reached = done()
        while !reached {
            if pumps, let task = mainPending {
                mainPending = nil
                condition.unlock()
                executeOnCallingThread(task)
                condition.lock()
            } else {
                if let limit, DispatchTime.now().uptimeNanoseconds >= limit { break }
                waiter.asleep = true
                condition.unlock()
                if let limit {
                    _ = waiter.semaphore.wait(timeout: DispatchTime(uptimeNanoseconds: limit))
                } else {
                    waiter.semaphore.wait()
                }
                condition.lock()
                waiter.asleep = false
            }
            reached = done()
        }
        waiters.removeAll { $0 === waiter }
        if pumps {
            pumpers -= 1
            if pumpers == 0, mainPending != nil {
                DispatchQueue.main.async { [self] in drainMainLane() }
            }
        }
        condition.unlock()
        return reached
    }

    private func workerLoop(number: Int) {
        condition.lock()
        while true {
            if !poolQueue.isEmpty {
                var next: Int? = poolQueue.removeFirst()
                condition.unlock()
                // A worker that finishes a task takes the next queued one itself, so the task
                // starts on a core that is free instead of waking a thread onto a busy one.
                var core: Int?
                while let task = next {
                    (next, core) = execute(task, worker: "pool-\(number)", takingNext: true, pinnedCore: core)
                }
                if core != nil, let allowed = pinning.allowed { LaunchCorePinning.confine(to: allowed) }
                condition.lock()
                continue
            }
            // With nothing running, work can only come from a phase that has not begun; the
            // next dispatch starts new threads then.
            if schedule.runningCount == 0 { break }
            idleWorkers += 1
            condition.wait()
            idleWorkers -= 1
        }
        workerNumbers.remove(number)
        condition.unlock()
    }

    /// Runs the main-lane task waiting for the main thread, if any; called on the main queue.
    private func drainMainLane() {
        condition.lock()
        guard let task = mainPending else {
            condition.unlock()
            return
        }
        mainPending = nil
        condition.unlock()
        executeOnCallingThread(task)
    }

    /// One idle moment of the main run loop: begins the idle phase and runs one main-lane task.
    private func idleTurn() {
        condition.lock()
        if !idleOpened {
            idleOpened = true
            schedule.open(.idle)
            update()
        }
        if LaunchRunner.isOnMainLane, let task = mainPending {
            mainPending = nil
            condition.unlock()
            executeOnCallingThread(task)
            condition.lock()
        }
        if idleSignalActive, schedule.isSettled(.idle) {
            idleSignalActive = false
            idleSignal.stop()
        } else if mainPending != nil {
            idleSignal.requestTurn()
        }
        condition.unlock()
    }

    // MARK: - Execution

    /// Runs a main-lane task on the calling thread, which keeps its own cores afterwards.
    private func executeOnCallingThread(_ task: Int) {
        let saved = pinning.isActive ? LaunchCorePinning.currentCores() : nil
        let (_, core) = execute(task, worker: "main")
        if core != nil, let saved { LaunchCorePinning.confine(to: saved) }
    }

    /// Runs a synchronous task on the current thread, bound to a free core of its own when
    /// pinning is on (`pinnedCore`: the core the thread is bound to already). Returns the pool
    /// task this thread takes on next (with `takingNext`, if one is queued) and the core the
    /// thread is bound to now.
    private func execute(_ task: Int, worker: String, takingNext: Bool = false,
                         pinnedCore: Int? = nil) -> (next: Int?, pinnedCore: Int?) {
        let core = begin(task, worker: worker, preferring: pinnedCore)
        if let core, core != pinnedCore { LaunchCorePinning.confine(to: .single(pinning.slotCores[core])) }
        let failure: String?
        do {
            switch graph.tasks[task].work {
            case .blocking(let work):
                try work()
            case .mainActor(let work):
                try LaunchRunner.runOnMainActor(work)
            case .suspending:
                preconditionFailure("async task \(graph.plan.specs[task].id) handed to a thread")
            }
            failure = nil
        } catch {
            failure = LaunchRunner.describe(error)
        }
        return (complete(task, failure: failure, takingNext: takingNext), core ?? pinnedCore)
    }

    private func executeSuspending(_ task: Int) async {
        guard case .suspending(let work) = graph.tasks[task].work else { return }
        begin(task, worker: "async")
        let failure: String?
        do {
            try await work()
            failure = nil
        } catch {
            failure = LaunchRunner.describe(error)
        }
        complete(task, failure: failure)
    }

    /// Stamps a task's start; for a synchronous task under pinning, takes a free core
    /// (`preferred` when free) and returns its index in the pinning's cores.
    @discardableResult
    private func begin(_ task: Int, worker: String, preferring preferred: Int? = nil) -> Int? {
        let onMainThread = Thread.isMainThread
        condition.lock()
        defer { condition.unlock() }
        var core: Int?
        if pinning.isActive, !graph.plan.specs[task].suspends {
            if let preferred, !coreTaken[preferred] {
                core = preferred
            } else {
                core = coreTaken.firstIndex(of: false)
            }
            if let core {
                coreTaken[core] = true
                taskCore[task] = core
            }
        }
        timings[task].start = clock.monotonicNow()
        timings[task].worker = worker
        timings[task].onMainThread = onMainThread
        if let timeout = graph.plan.specs[task].timeoutMs {
            timeoutQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(timeout, 1e12) * 1_000_000))) { [weak self] in
                self?.timeOut(task, limitMs: timeout)
            }
        }
        return core
    }

    /// Records a task's end and hands out what may start; with `takingNext` (a pool thread),
    /// removes and returns the first queued pool task for the calling thread.
    @discardableResult
    private func complete(_ task: Int, failure: String?, takingNext: Bool = false) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        let now = clock.monotonicNow()
        if let core = taskCore[task] {
            coreTaken[core] = false
            taskCore[task] = nil
        }
        timings[task].end = now
        if timings[task].settled == nil { timings[task].settled = now }
        schedule.finish(task, failure: failure)
        asyncTasks[task] = nil
        recordSpan(task)
        update(keeping: takingNext ? 1 : 0)
        return takingNext && !poolQueue.isEmpty ? poolQueue.removeFirst() : nil
    }

    private func timeOut(_ task: Int, limitMs: Double) {
        condition.lock()
        defer { condition.unlock() }
        guard schedule.states[task] == .running else { return }
        schedule.timeOut(task, limitMs: limitMs)
        timings[task].settled = clock.monotonicNow()
        asyncTasks[task]?.cancel()
        update()
    }

    // MARK: - Measurement

    private func offsetMs(_ instant: MonotonicInstant?) -> Double? {
        instant.map { $0.milliseconds(since: startInstant) }
    }

    private func wall(_ instant: MonotonicInstant) -> Date {
        startWall.addingTimeInterval(instant.milliseconds(since: startInstant) / 1000)
    }

    private func record(_ task: Int) -> LaunchTaskRecord {
        let spec = graph.plan.specs[task]
        let timing = timings[task]
        return LaunchTaskRecord(id: spec.id, lane: spec.lane, phase: spec.phase, state: schedule.states[task],
                                readyMs: offsetMs(timing.ready), startMs: offsetMs(timing.start),
                                endMs: offsetMs(timing.end), worker: timing.worker,
                                ranOnMainThread: timing.onMainThread)
    }

    /// Makes and delivers the span of a task that returned or was skipped (once).
    private func recordSpan(_ task: Int) {
        guard !timings[task].spanRecorded, let settled = timings[task].end ?? timings[task].settled else { return }
        timings[task].spanRecorded = true
        let spec = graph.plan.specs[task]
        let record = record(task)
        let start = timings[task].start ?? settled
        let span = LaunchTaskSpan.make(spec: spec, record: record, cores: cores, traceId: traceId,
                                       spanId: TraceIdentifier.spanId(), rootSpanId: rootSpanId,
                                       start: wall(start), end: wall(settled))
        spans.append(span)
        deliver(span)
    }

    private func makeRootSpan(_ result: LaunchRunResult) -> SpanPayload {
        let attributes: [String: AttributeValue] = [
            LaunchSpanAttribute.cores: .int(Int64(cores)),
            LaunchSpanAttribute.criticalPath: .string(result.analysis.criticalPath.joined(separator: ",")),
            LaunchSpanAttribute.criticalPathMs: .double(result.analysis.criticalPathMs),
            LaunchSpanAttribute.lowerBoundMs: .double(result.analysis.lowerBoundMs),
            LaunchSpanAttribute.reachedMilestone: .bool(result.reachedMilestone),
            LaunchSpanAttribute.unfinished: .string(result.unfinished.joined(separator: ",")),
        ]
        return SpanPayload(traceId: traceId, spanId: rootSpanId, name: LaunchSpanAttribute.rootSpanName, kind: .internal,
                           start: startWall, end: startWall.addingTimeInterval(result.elapsedMs / 1000),
                           status: result.reachedMilestone ? .ok : .error,
                           statusMessage: result.reachedMilestone ? nil
                               : "deadline passed with \(result.unfinished.count) unfinished task(s)",
                           attributes: attributes)
    }

    private func deliver(_ span: SpanPayload) {
        guard let spanRecorder else { return }
        spanQueue.async { spanRecorder.record(span) }
    }

    private func makeResult(reached: Bool) -> LaunchRunResult {
        let now = clock.monotonicNow()
        let plan = graph.plan
        let counted = plan.specs.map { milestone == .allPhases || $0.phase == .beforeFirstFrame }
        let records = plan.specs.indices.map(record)
        var durations = Array(repeating: 0.0, count: plan.count)
        var returned = Array(repeating: false, count: plan.count)
        var makespan = 0.0
        for task in plan.specs.indices where counted[task] {
            if let run = records[task].runMs {
                durations[task] = run
                returned[task] = true
            }
            if let settled = offsetMs(timings[task].settled) { makespan = max(makespan, settled) }
        }
        let elapsed = runStarted ? now.milliseconds(since: startInstant) : 0
        let unfinished = plan.specs.indices.filter { counted[$0] && !schedule.states[$0].isSettled }.map { plan.specs[$0].id }
        return LaunchRunResult(traceId: traceId, rootSpanId: rootSpanId, reachedMilestone: reached, elapsedMs: elapsed,
                               makespanMs: unfinished.isEmpty ? makespan : elapsed, tasks: records,
                               unfinished: unfinished,
                               analysis: LaunchAnalysis(plan: plan, durationsMs: durations, cores: cores,
                                                        including: returned),
                               spans: spans)
    }

    // MARK: - Main lane detection

    /// The main queue's specific key. Dispatch uses a key only for its identity, and this one is
    /// never mutated; Apple's SDKs before iOS 18 / macOS 15 do not mark `DispatchSpecificKey`
    /// `Sendable`, hence the box.
    private struct MainQueueKey: @unchecked Sendable {
        let key = DispatchSpecificKey<UInt8>()
    }

    private static let mainQueue = MainQueueKey()
    private static let markMainQueue: Void = DispatchQueue.main.setSpecific(key: mainQueue.key, value: 1)

    /// Whether the current code runs on the main thread or in a block of the main queue (which
    /// a process without a main run loop, such as a test runner, drains on another thread).
    static var isOnMainLane: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueue.key) != nil
    }

    /// Runs a main-actor task synchronously; the caller is on the main lane (``isOnMainLane``).
    /// `MainActor.assumeIsolated` checks that where it exists; before iOS 17 / macOS 14 the
    /// main lane is the main thread, checked here instead.
    private static func runOnMainActor(_ work: @MainActor @Sendable () throws -> Void) throws {
        if #available(iOS 17, macOS 14, *) {
            try MainActor.assumeIsolated { try work() }
        } else {
            precondition(Thread.isMainThread, "a main-actor launch task ran off the main thread")
            // A global-actor function and a plain one share their representation; the check
            // above is what makes calling it without the actor hop sound.
            try withoutActuallyEscaping(work) { escapable in
                try unsafeBitCast(escapable, to: (@Sendable () throws -> Void).self)()
            }
        }
    }

    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 500 ? String(text.prefix(500)) + "…" : text
    }
}
