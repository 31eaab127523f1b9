/// Runs a launch plan in virtual time with the runner's scheduling rules, so a team can try a
/// reordering, a new dependency or another core count before shipping it.
///
/// The model: a synchronous task holds one of `cores` slots for its whole duration (the main
/// thread counts as one of them); an `async` task holds none; the first frame comes when every
/// `beforeFirstFrame` task has settled; `afterFirstFrame` tasks start then, and `idle` tasks
/// once the main lane has nothing left to do. A task whose duration exceeds its timeout times
/// out at its timeout (its dependents are skipped) but keeps its slot until its duration ends.
///
/// Deterministic; cost O(tasks × ready tasks).
public enum LaunchSimulator {
    /// Simulates `plan` where task `i` takes `durationsMs[i]` ms and fails (after its duration)
    /// when `failing` holds `i`.
    public static func simulate(_ plan: LaunchPlan, durationsMs: [Double], cores: Int,
                                failing: Set<Int> = []) -> LaunchSimulation {
        precondition(durationsMs.count == plan.count, "one duration per task")
        let cores = max(1, cores)
        var schedule = LaunchSchedule(plan: plan, slots: cores)
        var readyMs: [Double?] = Array(repeating: nil, count: plan.count)
        var startMs: [Double?] = Array(repeating: nil, count: plan.count)
        var endMs: [Double?] = Array(repeating: nil, count: plan.count)
        var worker: [String?] = Array(repeating: nil, count: plan.count)
        var coreInUse = Array(repeating: false, count: cores)
        var coreOf: [Int: Int] = [:]
        // Running tasks and, for those that will time out, when.
        var running: [(task: Int, end: Double, timeoutAt: Double?)] = []
        var now = 0.0
        var firstFrame: Double?
        var idleOpened = false

        func noteChanges() {
            for notice in schedule.drainNotices() {
                if case .ready(let task) = notice { readyMs[task] = now }
            }
        }

        schedule.open(.beforeFirstFrame)
        while true {
            noteChanges()
            for assignment in schedule.dispatch() {
                let task = assignment.task
                startMs[task] = now
                let duration = max(0, durationsMs[task])
                switch assignment {
                case .main: worker[task] = "main"
                case .suspending: worker[task] = "async"
                case .pool:
                    let core = coreInUse.firstIndex(of: false) ?? 0
                    coreInUse[core] = true
                    coreOf[task] = core
                    worker[task] = "core\(core + 1)"
                }
                let timeout = plan.specs[task].timeoutMs.flatMap { $0 < duration ? now + $0 : nil }
                running.append((task, now + duration, timeout))
            }
            if firstFrame == nil, schedule.isSettled(.beforeFirstFrame) {
                firstFrame = now
                schedule.open(.afterFirstFrame)
                continue
            }
            if firstFrame != nil, !idleOpened, schedule.mainLaneIsIdle {
                idleOpened = true
                schedule.open(.idle)
                continue
            }
            guard !running.isEmpty else { break }
            // Advance to the next event; completions before timeouts at the same instant.
            var next = Double.infinity
            for entry in running {
                next = min(next, entry.end)
                if let timeoutAt = entry.timeoutAt { next = min(next, timeoutAt) }
            }
            now = next
            for entry in running.sorted(by: { $0.task < $1.task }) where entry.end == now {
                schedule.finish(entry.task, failure: failing.contains(entry.task) ? "simulated failure" : nil)
                endMs[entry.task] = now
                if let core = coreOf.removeValue(forKey: entry.task) { coreInUse[core] = false }
            }
            running.removeAll { $0.end == now }
            for index in running.indices where running[index].timeoutAt == now {
                let task = running[index].task
                schedule.timeOut(task, limitMs: plan.specs[task].timeoutMs ?? 0)
                running[index].timeoutAt = nil
            }
        }
        noteChanges()

        let entries = plan.specs.indices.map { task in
            LaunchSimulation.Entry(id: plan.specs[task].id, lane: plan.specs[task].lane, phase: plan.specs[task].phase,
                                   worker: worker[task], readyMs: readyMs[task], startMs: startMs[task],
                                   endMs: endMs[task], state: schedule.states[task])
        }
        let beforeFirstFrame = plan.specs.map { $0.phase == .beforeFirstFrame }
        return LaunchSimulation(cores: cores, entries: entries, firstFrameMs: firstFrame ?? now,
                                completionMs: now,
                                analysis: LaunchAnalysis(plan: plan, durationsMs: durationsMs, cores: cores,
                                                         including: beforeFirstFrame))
    }

    /// For each task on the critical path of the `beforeFirstFrame` tasks, how much earlier the
    /// launch would end without it (its duration set to zero, e.g. moved after the first
    /// frame): on the critical path alone, and in a full simulation on `cores` cores. Sorted by
    /// the simulated saving, largest first.
    ///
    /// Cost: one analysis per critical-path task, and one simulation for each of the `limit`
    /// tasks with the largest critical-path saving (the others are left out).
    public static func removalSavings(_ plan: LaunchPlan, durationsMs: [Double], cores: Int,
                                      limit: Int = 20) -> [LaunchTaskSaving] {
        let baseline = simulate(plan, durationsMs: durationsMs, cores: cores)
        let beforeFirstFrame = plan.specs.map { $0.phase == .beforeFirstFrame }
        var candidates: [(task: Int, pathSaving: Double)] = []
        for id in baseline.analysis.criticalPath {
            guard let task = plan.index(of: id) else { continue }
            var without = durationsMs
            without[task] = 0
            let path = LaunchAnalysis(plan: plan, durationsMs: without, cores: cores, including: beforeFirstFrame)
            candidates.append((task, baseline.analysis.criticalPathMs - path.criticalPathMs))
        }
        candidates.sort { ($0.pathSaving, -$0.task) > ($1.pathSaving, -$1.task) }
        let savings = candidates.prefix(max(0, limit)).map { candidate -> LaunchTaskSaving in
            var without = durationsMs
            without[candidate.task] = 0
            let simulated = simulate(plan, durationsMs: without, cores: cores)
            return LaunchTaskSaving(id: plan.specs[candidate.task].id, durationMs: durationsMs[candidate.task],
                                    criticalPathSavingMs: candidate.pathSaving,
                                    makespanSavingMs: baseline.firstFrameMs - simulated.firstFrameMs)
        }
        return savings.sorted {
            ($0.makespanSavingMs, $0.criticalPathSavingMs) > ($1.makespanSavingMs, $1.criticalPathSavingMs)
        }
    }
}
