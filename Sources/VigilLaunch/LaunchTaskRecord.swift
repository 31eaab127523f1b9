/// What the runner saw of one task, times in ms from the launch's start.
public struct LaunchTaskRecord: Hashable, Sendable {
    /// The task's id.
    public var id: String
    /// Its lane.
    public var lane: LaunchLane
    /// Its phase.
    public var phase: LaunchPhase
    /// Where it stands.
    public var state: LaunchTaskState
    /// When its dependencies had succeeded and its phase had begun.
    public var readyMs: Double?
    /// When its work started.
    public var startMs: Double?
    /// When its work returned (a timed-out task's real end, if it came).
    public var endMs: Double?
    /// `main`, `pool-N` or `async`.
    public var worker: String?
    /// Whether its work ran on the process's main thread.
    public var ranOnMainThread: Bool?

    /// Ready to start: waiting for a core, the main thread or its lane, in ms.
    public var waitMs: Double? {
        guard let readyMs, let startMs else { return nil }
        return max(0, startMs - readyMs)
    }

    /// Start to return, in ms.
    public var runMs: Double? {
        guard let startMs, let endMs else { return nil }
        return max(0, endMs - startMs)
    }
}
