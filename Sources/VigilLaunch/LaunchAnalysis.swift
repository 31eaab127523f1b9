/// What bounds a launch: its critical path and the makespan no scheduler could beat.
///
/// Computed from a plan and one duration per task (measured by the runner, or given to the
/// simulator), over the tasks `including` selects (normally the `beforeFirstFrame` ones):
/// - the **critical path**: the longest chain of tasks that must run one after another, through
///   dependencies and serial-lane order;
/// - the **lower bound** on the makespan: the largest of the critical path, the work that
///   holds a core divided by the cores (every synchronous task, main lane included; `async`
///   tasks hold none), and the main lane's own work (one thread).
///
/// Cost: O(tasks + dependencies).
public struct LaunchAnalysis: Hashable, Sendable, Codable {
    /// Cores the bound assumes.
    public var cores: Int
    /// Ids along the critical path, in execution order.
    public var criticalPath: [String]
    /// Length of the critical path, in ms.
    public var criticalPathMs: Double
    /// Work that holds a core (all synchronous tasks), in ms.
    public var coreWorkMs: Double
    /// Work of the main lane, in ms.
    public var mainLaneMs: Double
    /// Every included task one after another on one thread (today's `didFinishLaunching`), in ms.
    public var serialMs: Double
    /// No schedule of the included tasks on `cores` cores ends sooner than this, in ms.
    public var lowerBoundMs: Double

    /// Analyses `durationsMs` (one per task of `plan`, in ms) on `cores` cores.
    ///
    /// - Parameter including: which tasks count; nil counts every task.
    public init(plan: LaunchPlan, durationsMs: [Double], cores: Int, including: [Bool]? = nil) {
        precondition(durationsMs.count == plan.count, "one duration per task")
        let cores = max(1, cores)
        func counts(_ task: Int) -> Bool { including?[task] ?? true }
        var finish = Array(repeating: 0.0, count: plan.count)
        var previous: [Int?] = Array(repeating: nil, count: plan.count)
        var coreWork = 0.0, mainWork = 0.0, serial = 0.0
        var last: Int?
        for task in plan.topologicalOrder where counts(task) {
            let duration = max(0, durationsMs[task])
            var start = 0.0
            for predecessor in plan.predecessors(of: task) where counts(predecessor) && finish[predecessor] > start {
                start = finish[predecessor]
                previous[task] = predecessor
            }
            finish[task] = start + duration
            if last.map({ finish[task] > finish[$0] }) ?? true { last = task }
            serial += duration
            if !plan.specs[task].suspends { coreWork += duration }
            if plan.specs[task].lane == .main { mainWork += duration }
        }
        var path: [String] = []
        var cursor = last
        while let task = cursor {
            path.append(plan.specs[task].id)
            cursor = previous[task]
        }
        self.cores = cores
        criticalPath = path.reversed()
        criticalPathMs = last.map { finish[$0] } ?? 0
        coreWorkMs = coreWork
        mainLaneMs = mainWork
        serialMs = serial
        lowerBoundMs = max(criticalPathMs, coreWork / Double(cores), mainWork)
    }

    /// Which term sets the lower bound: `criticalPath`, `coreWork` or `mainLane`.
    public var boundedBy: String {
        if lowerBoundMs == criticalPathMs { return "criticalPath" }
        if lowerBoundMs == mainLaneMs { return "mainLane" }
        return "coreWork"
    }
}
