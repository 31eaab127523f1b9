/// What taking one task off the launch's critical path would save.
public struct LaunchTaskSaving: Hashable, Sendable, Codable {
    /// The task.
    public var id: String
    /// Its duration, in ms.
    public var durationMs: Double
    /// How much shorter the critical path gets without it, in ms.
    public var criticalPathSavingMs: Double
    /// How much earlier the simulated first frame comes without it, in ms.
    public var makespanSavingMs: Double
}
