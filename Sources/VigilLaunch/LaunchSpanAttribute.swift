/// The attribute keys of the runner's spans. A task span is named `launch.task.<id>`; the root
/// span, parent of every task span, is named `launch`. `vigil launch report` reads them back.
public enum LaunchSpanAttribute {
    /// Task id (string).
    public static let taskId = "launch.task.id"
    /// Lane in ``LaunchLane/description`` form (string).
    public static let lane = "launch.task.lane"
    /// Phase raw value (string).
    public static let phase = "launch.task.phase"
    /// Priority (int).
    public static let priority = "launch.task.priority"
    /// Dependency ids joined with commas (string, empty when none).
    public static let dependencies = "launch.task.dependencies"
    /// Whether the work is `async` (bool).
    public static let suspends = "launch.task.suspends"
    /// ``LaunchTaskState/label`` at the end (string).
    public static let outcome = "launch.task.outcome"
    /// Why a skipped task never ran (string).
    public static let skipReason = "launch.task.skip_reason"
    /// The task's timeout, when it has one (double, ms).
    public static let timeoutMs = "launch.task.timeout_ms"
    /// Time from ready to start: waiting for a core, the main thread or its lane (double, ms).
    public static let waitMs = "launch.task.wait_ms"
    /// Time from start to return (double, ms).
    public static let runMs = "launch.task.run_ms"
    /// When it became ready, from the launch's start (double, ms).
    public static let readyOffsetMs = "launch.task.ready_offset_ms"
    /// When it started, from the launch's start (double, ms).
    public static let startOffsetMs = "launch.task.start_offset_ms"
    /// `main`, `pool-N` or `async` (string).
    public static let worker = "launch.task.worker"
    /// Whether the work ran on the process's main thread (bool).
    public static let mainThread = "launch.task.main_thread"
    /// Cores the runner used (int); on the root span and on every task span.
    public static let cores = "launch.cores"
    /// Root span: the measured critical path (string, ids joined with commas).
    public static let criticalPath = "launch.critical_path"
    /// Root span: critical path length (double, ms).
    public static let criticalPathMs = "launch.critical_path_ms"
    /// Root span: makespan lower bound (double, ms).
    public static let lowerBoundMs = "launch.lower_bound_ms"
    /// Root span: whether the milestone was reached before the deadline (bool).
    public static let reachedMilestone = "launch.reached_milestone"
    /// Root span: ids of the tasks the launch did not wait for at the deadline (string, joined
    /// with commas).
    public static let unfinished = "launch.unfinished"

    /// Span name prefix of task spans.
    public static let taskSpanPrefix = "launch.task."
    /// Name of the root span.
    public static let rootSpanName = "launch"
}
