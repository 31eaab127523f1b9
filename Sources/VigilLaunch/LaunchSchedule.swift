/// The launch scheduler as a pure state machine: which task may start where, given what has
/// finished. The real runner drives it from threads under a lock; the simulator drives it in
/// virtual time. Neither adds scheduling logic of its own, so a simulation shows what the
/// runner will do.
///
/// Resources: `slots` cores, each held by one running synchronous task (main-lane tasks
/// included, so the main thread counts as one of the cores); the main thread, one task at a
/// time; each serial lane, one task at a time in its fixed order. `async` tasks hold no slot.
/// Among the tasks that could take a slot, the one with the highest priority wins, then the
/// one with the longest estimated chain after it (``LaunchPlan/bottomLevel``), then the one
/// registered first.
///
/// Not thread-safe; every operation costs O(ready tasks) or less, except `dispatch`, which is
/// O(ready tasks) per task it starts.
struct LaunchSchedule {
    /// Where a dispatched task must run.
    enum Assignment: Hashable {
        /// On the main thread.
        case main(Int)
        /// On a pool thread.
        case pool(Int)
        /// As a Swift task (its work is `async`).
        case suspending(Int)

        var task: Int {
            switch self {
            case .main(let task), .pool(let task), .suspending(let task): return task
            }
        }
    }

    /// A change the driver may want to timestamp.
    enum Notice: Hashable {
        case ready(Int)
        case skipped(Int)
    }

    let plan: LaunchPlan
    /// How many synchronous tasks may run at once.
    let slots: Int
    private(set) var states: [LaunchTaskState]
    private var unmetDependencies: [Int]
    private var phaseOpen = [false, false, false]
    /// Ready tasks not yet dispatched, in no particular order.
    private var readyTasks: [Int] = []
    private var busySlots = 0
    private(set) var mainBusy = false
    private var laneBusy: [Bool]
    private var laneCursor: [Int]
    private var unsettledByPhase = [0, 0, 0]
    /// Tasks handed out and not yet returned (timed-out ones included).
    private(set) var runningCount = 0
    private var notices: [Notice] = []

    init(plan: LaunchPlan, slots: Int) {
        precondition(slots >= 1, "a launch schedule needs at least one slot")
        self.plan = plan
        self.slots = slots
        states = Array(repeating: .waiting, count: plan.count)
        unmetDependencies = plan.dependencies.map(\.count)
        laneBusy = Array(repeating: false, count: plan.serialLanes.count)
        laneCursor = Array(repeating: 0, count: plan.serialLanes.count)
        for spec in plan.specs { unsettledByPhase[spec.phase.rank] += 1 }
    }

    /// Whether `phase` has begun.
    func isOpen(_ phase: LaunchPhase) -> Bool { phaseOpen[phase.rank] }

    /// Whether every task of `phase` is settled (succeeded, failed, timed out or skipped).
    func isSettled(_ phase: LaunchPhase) -> Bool { unsettledByPhase[phase.rank] == 0 }

    /// Whether every task of every phase is settled and none is still running.
    var isComplete: Bool { unsettledByPhase.allSatisfy { $0 == 0 } && runningCount == 0 }

    /// Whether the main lane has nothing running and nothing ready to run.
    var mainLaneIsIdle: Bool {
        !mainBusy && !readyTasks.contains { plan.specs[$0].lane == .main }
    }

    /// Begins `phase`: its tasks whose dependencies all succeeded become ready.
    mutating func open(_ phase: LaunchPhase) {
        guard !phaseOpen[phase.rank] else { return }
        phaseOpen[phase.rank] = true
        for task in plan.specs.indices where plan.specs[task].phase == phase {
            if states[task] == .waiting, unmetDependencies[task] == 0 { makeReady(task) }
        }
    }

    /// Hands out every task that may start now and marks it running.
    mutating func dispatch() -> [Assignment] {
        var assignments: [Assignment] = []
        var index = 0
        while index < readyTasks.count {
            let task = readyTasks[index]
            if plan.specs[task].suspends, canStart(task) {
                start(task)
                assignments.append(.suspending(task))
            } else {
                index += 1
            }
        }
        while busySlots < slots {
            var best: Int?
            for task in readyTasks where !plan.specs[task].suspends && canStart(task) {
                if let current = best, !ranksBefore(task, current) { continue }
                best = task
            }
            guard let chosen = best else { break }
            start(chosen)
            assignments.append(plan.specs[chosen].lane == .main ? .main(chosen) : .pool(chosen))
        }
        return assignments
    }

    /// Records that `task`'s work returned, with `failure` (the error's description) when it
    /// threw. A task that had timed out stays timed out.
    mutating func finish(_ task: Int, failure: String?) {
        switch states[task] {
        case .running:
            unsettledByPhase[plan.specs[task].phase.rank] -= 1
            if let failure {
                states[task] = .failed(failure)
                skipDependents(of: task, cause: "dependency \"\(plan.specs[task].id)\" failed: \(failure)")
            } else {
                states[task] = .succeeded
                for dependent in plan.dependents[task] {
                    unmetDependencies[dependent] -= 1
                    if unmetDependencies[dependent] == 0, states[dependent] == .waiting,
                       phaseOpen[plan.specs[dependent].phase.rank] {
                        makeReady(dependent)
                    }
                }
            }
        case .timedOut(let limit, true):
            states[task] = .timedOut(limitMs: limit, stillRunning: false)
        default:
            preconditionFailure("finish(\(plan.specs[task].id)) in state \(states[task])")
        }
        release(task)
    }

    /// Gives up waiting for a running `task` after `limitMs`: it settles as timed out and its
    /// dependents are skipped, but it keeps its slot and lane until its work returns.
    /// Does nothing when the task is not running.
    mutating func timeOut(_ task: Int, limitMs: Double) {
        guard states[task] == .running else { return }
        states[task] = .timedOut(limitMs: limitMs, stillRunning: true)
        unsettledByPhase[plan.specs[task].phase.rank] -= 1
        skipDependents(of: task, cause: "dependency \"\(plan.specs[task].id)\" timed out after "
                       + "\(LaunchTaskState.format(limitMs)) ms")
    }

    /// The ready and skipped notices since the last call, in the order they happened.
    mutating func drainNotices() -> [Notice] {
        defer { notices.removeAll(keepingCapacity: true) }
        return notices
    }

    // MARK: - Internals

    private mutating func makeReady(_ task: Int) {
        states[task] = .ready
        readyTasks.append(task)
        notices.append(.ready(task))
    }

    private func canStart(_ task: Int) -> Bool {
        switch plan.specs[task].lane {
        case .concurrent:
            return true
        case .main:
            return !mainBusy
        case .serial:
            guard let lane = plan.serialLaneOf[task], !laneBusy[lane] else { return false }
            let order = plan.serialLaneOrder[lane]
            return laneCursor[lane] < order.count && order[laneCursor[lane]] == task
        }
    }

    /// Whether `task` should start before `other`: priority, then longest chain, then
    /// registration order.
    private func ranksBefore(_ task: Int, _ other: Int) -> Bool {
        let a = plan.specs[task], b = plan.specs[other]
        if a.priority != b.priority { return a.priority > b.priority }
        if plan.bottomLevel[task] != plan.bottomLevel[other] { return plan.bottomLevel[task] > plan.bottomLevel[other] }
        return task < other
    }

    private mutating func start(_ task: Int) {
        if let position = readyTasks.firstIndex(of: task) { readyTasks.remove(at: position) }
        states[task] = .running
        runningCount += 1
        let spec = plan.specs[task]
        if !spec.suspends { busySlots += 1 }
        if spec.lane == .main { mainBusy = true }
        if let lane = plan.serialLaneOf[task] { laneBusy[lane] = true }
    }

    private mutating func release(_ task: Int) {
        runningCount -= 1
        let spec = plan.specs[task]
        if !spec.suspends { busySlots -= 1 }
        if spec.lane == .main { mainBusy = false }
        if let lane = plan.serialLaneOf[task] {
            laneBusy[lane] = false
            advanceLane(lane)
        }
    }

    /// Moves a serial lane's cursor past tasks that are done with it (returned or skipped).
    private mutating func advanceLane(_ lane: Int) {
        let order = plan.serialLaneOrder[lane]
        while laneCursor[lane] < order.count {
            switch states[order[laneCursor[lane]]] {
            case .succeeded, .failed, .skipped, .timedOut(_, false): laneCursor[lane] += 1
            default: return
            }
        }
    }

    /// Skips every task that (transitively) depends on `root`, naming the root cause.
    private mutating func skipDependents(of root: Int, cause: String) {
        var pending = [(task: root, reason: cause)]
        var touchedLanes: Set<Int> = []
        while let (task, reason) = pending.popLast() {
            for dependent in plan.dependents[task] where states[dependent] == .waiting {
                states[dependent] = .skipped(dependency: plan.specs[task].id, reason: reason)
                unsettledByPhase[plan.specs[dependent].phase.rank] -= 1
                notices.append(.skipped(dependent))
                if let lane = plan.serialLaneOf[dependent] { touchedLanes.insert(lane) }
                pending.append((dependent, "dependency \"\(plan.specs[dependent].id)\" was skipped because \(reason)"))
            }
        }
        for lane in touchedLanes.sorted() { advanceLane(lane) }
    }
}
