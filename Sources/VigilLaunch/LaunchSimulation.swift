/// The outcome of scheduling a launch graph in virtual time: when each task would start and end
/// under the runner's own scheduling rules, given each task's duration.
public struct LaunchSimulation: Hashable, Sendable {
    /// One task's simulated life.
    public struct Entry: Hashable, Sendable {
        /// The task's id.
        public var id: String
        /// Its lane.
        public var lane: LaunchLane
        /// Its phase.
        public var phase: LaunchPhase
        /// Where it ran: `main`, `core1`…`coreN` for synchronous pool work, `async` for
        /// suspending work; nil when it never ran.
        public var worker: String?
        /// When it became ready, in ms from the start; nil when it never did.
        public var readyMs: Double?
        /// When it started, in ms from the start.
        public var startMs: Double?
        /// When its work returned, in ms from the start.
        public var endMs: Double?
        /// How it ended.
        public var state: LaunchTaskState
    }

    /// Cores simulated.
    public var cores: Int
    /// Every task, in registration order.
    public var entries: [Entry]
    /// When every `beforeFirstFrame` task had settled: the launch's makespan, in ms.
    public var firstFrameMs: Double
    /// When every task of every phase had returned, in ms.
    public var completionMs: Double
    /// Critical path and lower bound of the `beforeFirstFrame` tasks.
    public var analysis: LaunchAnalysis

    /// The launch's makespan (``firstFrameMs``), in ms.
    public var makespanMs: Double { firstFrameMs }
}
