/// What ``LaunchRunner/run(until:deadline:)`` waits for.
public enum LaunchMilestone: Hashable, Sendable {
    /// Every `beforeFirstFrame` task settled. Later phases wait for
    /// ``LaunchRunner/reportFirstFrame()`` and the idle main run loop.
    case firstFrame
    /// Every task of every phase settled, all phases begun at once: for a process without a
    /// first frame (a command-line tool, a server) and for measurements.
    case allPhases
}
