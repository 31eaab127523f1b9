import Foundation
import VigilCore

/// One launch read back from the runner's spans (from a `launch` event's `tasks`, or from
/// `span` events): what `vigil launch report` prints.
public struct LaunchTrace: Hashable, Sendable {
    /// One task as its span recorded it; times in ms from the launch's start.
    public struct Task: Hashable, Sendable {
        /// Task id.
        public var id: String
        /// Declared dependencies.
        public var dependencies: [String]
        /// Lane.
        public var lane: LaunchLane
        /// Phase.
        public var phase: LaunchPhase
        /// Priority.
        public var priority: Int
        /// Whether its work was `async`.
        public var suspends: Bool
        /// ``LaunchTaskState/label`` of its outcome.
        public var outcome: String
        /// Error, timeout or skip reason.
        public var message: String?
        /// When it became ready.
        public var readyMs: Double?
        /// When it started (or was skipped).
        public var startMs: Double
        /// When it returned (or was skipped).
        public var endMs: Double
        /// `main`, `pool-N` or `async`.
        public var worker: String?

        /// Start to return, in ms.
        public var runMs: Double { max(0, endMs - startMs) }
        /// Ready to start, in ms.
        public var waitMs: Double? { readyMs.map { max(0, startMs - $0) } }
    }

    /// The trace id.
    public var traceId: String
    /// Cores the runner used, when recorded.
    public var cores: Int?
    /// The tasks, by start time.
    public var tasks: [Task]
    /// Dependencies named by a task but absent from the trace (dropped from ``plan()``).
    public var absentDependencies: [String]

    /// A trace with the given parts.
    public init(traceId: String, cores: Int?, tasks: [Task], absentDependencies: [String]) {
        self.traceId = traceId
        self.cores = cores
        self.tasks = tasks
        self.absentDependencies = absentDependencies
    }

    /// The trace a simulation would have recorded, with the trace id `simulation`.
    public init(simulation: LaunchSimulation, plan: LaunchPlan) {
        traceId = "simulation"
        cores = simulation.cores
        absentDependencies = []
        tasks = simulation.entries.enumerated().map { index, entry in
            let spec = plan.specs[index]
            return Task(id: entry.id, dependencies: spec.dependencies, lane: entry.lane, phase: entry.phase,
                        priority: spec.priority, suspends: spec.suspends, outcome: entry.state.label, message: nil,
                        readyMs: entry.readyMs, startMs: entry.startMs ?? 0, endMs: entry.endMs ?? entry.startMs ?? 0,
                        worker: entry.worker)
        }.sorted { ($0.startMs, $0.endMs) < ($1.startMs, $1.endMs) }
    }

    /// The spans `events` carry: `span` events themselves and the task spans of `launch`
    /// events, in order; other events carry none.
    public static func spans(in events: [Event]) -> [SpanPayload] {
        var spans: [SpanPayload] = []
        for event in events {
            switch event.payload {
            case .span(let span): spans.append(span)
            case .launch(let launch): spans.append(contentsOf: launch.tasks ?? [])
            default: break
            }
        }
        return spans
    }

    /// Groups the launch task spans among `spans` by trace, in order of first appearance.
    /// Spans that are not launch task spans are ignored; a malformed attribute falls back to
    /// the span's own fields.
    public static func traces(from spans: [SpanPayload]) -> [LaunchTrace] {
        var order: [String] = []
        var byTrace: [String: [SpanPayload]] = [:]
        var cores: [String: Int] = [:]
        var rootStart: [String: Date] = [:]
        for span in spans {
            if span.name == LaunchSpanAttribute.rootSpanName {
                rootStart[span.traceId] = span.start
                if let value = coresAttribute(span) { cores[span.traceId] = value }
            }
            guard span.name.hasPrefix(LaunchSpanAttribute.taskSpanPrefix) else { continue }
            if byTrace[span.traceId] == nil { order.append(span.traceId) }
            byTrace[span.traceId, default: []].append(span)
        }
        return order.map { traceId in
            let taskSpans = byTrace[traceId] ?? []
            // Offsets count from the root span's start when it is there, like the attributes do.
            let origin = rootStart[traceId] ?? taskSpans.map(\.start).min() ?? Date(timeIntervalSince1970: 0)
            var seen: Set<String> = []
            var tasks: [Task] = []
            var traceCores = cores[traceId]
            for span in taskSpans {
                let task = makeTask(span, origin: origin)
                guard seen.insert(task.id).inserted else { continue }
                tasks.append(task)
                if traceCores == nil, let value = coresAttribute(span) { traceCores = value }
            }
            tasks.sort { ($0.startMs, $0.endMs) < ($1.startMs, $1.endMs) }
            let absent = Set(tasks.flatMap(\.dependencies)).subtracting(seen).sorted()
            return LaunchTrace(traceId: traceId, cores: traceCores, tasks: tasks, absentDependencies: absent)
        }
    }

    /// When the last `beforeFirstFrame` task ended, in ms from the start.
    public var firstFrameMs: Double {
        tasks.filter { $0.phase == .beforeFirstFrame }.map(\.endMs).max() ?? 0
    }

    /// The trace's tasks as a plan (dependencies absent from the trace dropped), with each
    /// task's measured run time as its duration.
    public func plan() throws(LaunchGraphError) -> (plan: LaunchPlan, durationsMs: [Double]) {
        let present = Set(tasks.map(\.id))
        let specs = tasks.map { task in
            LaunchTaskSpec(id: task.id, dependencies: task.dependencies.filter { present.contains($0) }, lane: task.lane,
                           phase: task.phase, priority: task.priority, estimatedMs: task.runMs,
                           suspends: task.suspends && task.lane != .main)
        }
        return (try LaunchPlan(specs), tasks.map(\.runMs))
    }

    /// Largest time offset or duration read from a span, in ms (one day).
    static let maxMilliseconds = 86_400_000.0

    /// Most cores a span may claim: what graph files and `--cores` accept.
    static let maxCores = 1024

    /// The span's `launch.cores` attribute when it is a core count in 1…``maxCores``; any other
    /// value is ignored, because the simulator allocates per core and the file is outside input.
    private static func coresAttribute(_ span: SpanPayload) -> Int? {
        guard case .int(let value)? = span.attributes[LaunchSpanAttribute.cores], value >= 1,
              value <= Int64(maxCores) else { return nil }
        return Int(value)
    }

    private static func makeTask(_ span: SpanPayload, origin: Date) -> Task {
        let attributes = span.attributes
        func string(_ key: String) -> String? {
            if case .string(let value)? = attributes[key] { return value }
            return nil
        }
        func number(_ key: String) -> Double? {
            switch attributes[key] {
            case .double(let value)?: return value.isFinite ? value : nil
            case .int(let value)?: return Double(value)
            default: return nil
            }
        }
        let id = string(LaunchSpanAttribute.taskId) ?? String(span.name.dropFirst(LaunchSpanAttribute.taskSpanPrefix.count))
        let dependencies = (string(LaunchSpanAttribute.dependencies) ?? "")
            .split(separator: ",").map(String.init).filter { !$0.isEmpty }
        // Times are clamped to a day so that hostile values cannot overflow later arithmetic.
        func clamp(_ value: Double) -> Double { min(max(value, 0), maxMilliseconds) }
        let spanStart = span.start.timeIntervalSince(origin) * 1000
        let startMs = clamp(number(LaunchSpanAttribute.startOffsetMs) ?? spanStart)
        let runMs = clamp(number(LaunchSpanAttribute.runMs) ?? span.durationMs)
        var priority = 0
        if case .int(let value)? = attributes[LaunchSpanAttribute.priority] { priority = Int(clamping: value) }
        var suspends = false
        if case .bool(let value)? = attributes[LaunchSpanAttribute.suspends] { suspends = value }
        let outcome = string(LaunchSpanAttribute.outcome) ?? (span.status == .error ? "failed" : "succeeded")
        return Task(id: id, dependencies: dependencies,
                    lane: string(LaunchSpanAttribute.lane).flatMap(LaunchLane.init(parsing:)) ?? .concurrent,
                    phase: string(LaunchSpanAttribute.phase).flatMap(LaunchPhase.init(rawValue:)) ?? .beforeFirstFrame,
                    priority: priority, suspends: suspends, outcome: outcome,
                    message: span.statusMessage ?? string(LaunchSpanAttribute.skipReason),
                    readyMs: number(LaunchSpanAttribute.readyOffsetMs).map(clamp), startMs: startMs,
                    endMs: startMs + runMs,
                    worker: string(LaunchSpanAttribute.worker))
    }
}
