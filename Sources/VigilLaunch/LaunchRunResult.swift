import VigilCore

/// What a launch run looked like when ``LaunchRunner/run(until:deadline:)`` returned (or when
/// a later snapshot was taken).
public struct LaunchRunResult: Sendable {
    /// The launch's trace id (32 hex digits), shared by every task span.
    public var traceId: String
    /// The root span's id (16 hex digits), parent of every task span.
    public var rootSpanId: String
    /// Whether the milestone was reached before the deadline.
    public var reachedMilestone: Bool
    /// From the run's start to this result, in ms.
    public var elapsedMs: Double
    /// When the last task of the milestone's phases returned or settled, from the start, in ms.
    public var makespanMs: Double
    /// Every task of the graph, in registration order.
    public var tasks: [LaunchTaskRecord]
    /// Ids of the milestone's tasks that had not settled: waiting, ready or running.
    public var unfinished: [String]
    /// Critical path and lower bound of the milestone's tasks that returned, from their
    /// measured run times.
    public var analysis: LaunchAnalysis
    /// The task spans recorded so far (one per returned or skipped task).
    public var spans: [SpanPayload]

    /// Ids of the tasks that failed.
    public var failed: [String] { tasks.filter { if case .failed = $0.state { return true }; return false }.map(\.id) }
    /// Ids of the tasks that timed out.
    public var timedOut: [String] { tasks.filter { if case .timedOut = $0.state { return true }; return false }.map(\.id) }
    /// Ids of the tasks that were skipped.
    public var skipped: [String] { tasks.filter { if case .skipped = $0.state { return true }; return false }.map(\.id) }

    /// The record of task `id`.
    public func task(_ id: String) -> LaunchTaskRecord? { tasks.first { $0.id == id } }

    /// Puts the trace id and the task spans into a `launch` event payload.
    public func apply(to payload: inout LaunchPayload) {
        payload.traceId = traceId
        payload.tasks = spans
    }
}
