import Foundation
import VigilCore

/// One launch's orchestrator tasks, read from the task spans of its `launch` event, with the
/// critical path through them.
///
/// The **critical path** is the longest chain of tasks that must run one after another —
/// through their declared dependencies and through the order of a serial lane (tasks of one
/// serial lane run one at a time, so each waits for the one that started before it) — weighed
/// by each task's measured run time. That is how `VigilLaunch`'s `LaunchAnalysis` defines it,
/// recomputed here from what the spans carry. Only tasks before the first frame count (a span
/// without a phase counts). A dependency cycle (possible only in hand-made input) leaves its
/// tasks off the path.
///
/// Pure; cost: O(tasks + dependencies) after a sort.
public struct LaunchTaskTimeline: Sendable, Hashable, Codable {
    /// One task as drawn.
    public struct Task: Sendable, Hashable, Codable {
        /// Task id (`launch.task.id`, else the span name without `launch.task.`).
        public var id: String
        /// The thread it ran on: `main`, `pool-N`, `async` (`launch.task.worker`), else its lane.
        public var worker: String
        /// Declared lane: `main`, `concurrent` or `serial:NAME`.
        public var lane: String
        /// `beforeFirstFrame`, `afterFirstFrame` or `idle`.
        public var phase: String
        /// Dependency ids.
        public var dependencies: [String]
        /// When it became ready, in ms from the launch's start (nil when not recorded).
        public var readyMs: Double?
        /// When it started, in ms from the launch's start.
        public var startMs: Double
        /// How long it ran, in ms.
        public var runMs: Double
        /// `succeeded`, `failed`, `timedOut`, `skipped`.
        public var outcome: String
        /// Whether it lies on the critical path.
        public var critical: Bool

        /// Creates a task.
        public init(id: String, worker: String, lane: String = "concurrent", phase: String = "beforeFirstFrame",
                    dependencies: [String] = [], readyMs: Double? = nil, startMs: Double, runMs: Double,
                    outcome: String = "succeeded", critical: Bool = false) {
            self.id = id
            self.worker = worker
            self.lane = lane
            self.phase = phase
            self.dependencies = dependencies
            self.readyMs = readyMs
            self.startMs = startMs
            self.runMs = runMs
            self.outcome = outcome
            self.critical = critical
        }

        /// When it returned, in ms from the launch's start.
        public var endMs: Double { startMs + runMs }
    }

    /// Tasks by start time (then id).
    public private(set) var tasks: [Task]
    /// Ids along the critical path, in execution order.
    public private(set) var criticalPath: [String]
    /// The critical path's length: the sum of its tasks' run times, in ms.
    public private(set) var criticalPathMs: Double

    /// The timeline of `tasks`, with the critical path computed and marked.
    public init(tasks: [Task]) {
        var tasks = tasks.sorted { ($0.startMs, $0.id) < ($1.startMs, $1.id) }
        let (path, length) = Self.criticalPath(tasks)
        let onPath = Set(path)
        for index in tasks.indices { tasks[index].critical = onPath.contains(tasks[index].id) }
        self.tasks = tasks
        criticalPath = path
        criticalPathMs = length
    }

    /// The timeline of a launch's task spans (the `tasks` of a `launch` payload); spans that are
    /// not tasks (no `launch.task.` prefix and no task id) are left out.
    public init(spans: [SpanPayload]) {
        let origin = spans.map(\.start).min() ?? Date(timeIntervalSince1970: 0)
        var seen: Set<String> = []
        var tasks: [Task] = []
        for span in spans {
            let attributes = span.attributes
            func text(_ key: String) -> String? {
                guard let value = attributes[key] else { return nil }
                if case .string(let string) = value { return string }
                return value.description
            }
            func number(_ key: String) -> Double? {
                switch attributes[key] {
                case .double(let value)?: return value.isFinite ? value : nil
                case .int(let value)?: return Double(value)
                case .string(let value)?: return Double(value).flatMap { $0.isFinite ? $0 : nil }
                default: return nil
                }
            }
            let prefix = "launch.task."
            guard let id = text("launch.task.id") ?? (span.name.hasPrefix(prefix) ? String(span.name.dropFirst(prefix.count)) : nil),
                  !id.isEmpty, seen.insert(id).inserted else { continue }
            let lane = text("launch.task.lane") ?? "concurrent"
            let start = number("launch.task.start_offset_ms") ?? span.start.timeIntervalSince(origin) * 1000
            let run = number("launch.task.run_ms") ?? span.durationMs
            let dependencies = (text("launch.task.dependencies") ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            tasks.append(Task(id: id, worker: text("launch.task.worker") ?? lane, lane: lane,
                              phase: text("launch.task.phase") ?? "beforeFirstFrame", dependencies: dependencies,
                              readyMs: number("launch.task.ready_offset_ms"), startMs: max(0, start), runMs: max(0, run),
                              outcome: text("launch.task.outcome") ?? (span.status == .error ? "failed" : "succeeded")))
        }
        self.init(tasks: tasks)
    }

    /// Threads in the order a waterfall draws them: `main` first, then the pool's threads by
    /// number, then the others by name.
    public var workers: [String] {
        func rank(_ worker: String) -> (Int, Int, String) {
            if worker == "main" { return (0, 0, worker) }
            if worker.hasPrefix("pool-"), let number = Int(worker.dropFirst(5)) { return (1, number, worker) }
            return (2, 0, worker)
        }
        return Set(tasks.map(\.worker)).sorted { rank($0) < rank($1) }
    }

    /// The latest end of any task, in ms.
    public var endMs: Double { tasks.map(\.endMs).max() ?? 0 }

    /// The longest chain through dependencies and serial-lane order among the tasks before the
    /// first frame, and its length. `tasks` are sorted by start.
    static func criticalPath(_ tasks: [Task]) -> ([String], Double) {
        let counted = tasks.indices.filter { tasks[$0].phase == "beforeFirstFrame" }
        var position: [String: Int] = [:]
        for index in counted { position[tasks[index].id] = index }
        var predecessors: [Int: [Int]] = [:]
        var previousOnLane: [String: Int] = [:]
        for index in counted {
            let task = tasks[index]
            var list = task.dependencies.compactMap { position[$0] }.filter { $0 != index }
            if task.lane.hasPrefix("serial:") {
                if let previous = previousOnLane[task.lane] { list.append(previous) }
                previousOnLane[task.lane] = index
            }
            predecessors[index] = list
        }
        // Kahn's algorithm over the counted tasks: a task is placed once all its predecessors
        // are; tasks in a cycle are never placed.
        var waiting: [Int: Int] = [:]
        var successors: [Int: [Int]] = [:]
        for index in counted {
            let list = predecessors[index] ?? []
            waiting[index] = list.count
            for predecessor in list { successors[predecessor, default: []].append(index) }
        }
        var ready = counted.filter { waiting[$0] == 0 }
        var finish: [Int: Double] = [:]
        var previous: [Int: Int] = [:]
        var last: Int?
        var cursor = 0
        while cursor < ready.count {
            let index = ready[cursor]
            cursor += 1
            var start = 0.0
            for predecessor in predecessors[index] ?? [] {
                guard let end = finish[predecessor] else { continue }
                if previous[index] == nil || end > start {
                    start = end
                    previous[index] = predecessor
                }
            }
            finish[index] = start + tasks[index].runMs
            if last.map({ finish[index]! > finish[$0]! }) ?? true { last = index }
            for successor in successors[index] ?? [] {
                waiting[successor]! -= 1
                if waiting[successor] == 0 { ready.append(successor) }
            }
        }
        var path: [String] = []
        var step = last
        while let index = step {
            path.append(tasks[index].id)
            step = previous[index]
        }
        return (path.reversed(), last.flatMap { finish[$0] } ?? 0)
    }
}
