/// When in the launch a task may start.
///
/// Phases are ordered: a task may depend on tasks of its own phase or an earlier one, never on a
/// later one (the graph rejects that, since such a task could not run in time).
public enum LaunchPhase: String, Hashable, Sendable, CaseIterable, Comparable, Codable {
    /// Before the first frame: what `run(until: .firstFrame, deadline:)` waits for.
    case beforeFirstFrame
    /// Once the app reported its first frame (`LaunchRunner.reportFirstFrame()`).
    case afterFirstFrame
    /// When the main run loop is idle after the first frame.
    case idle

    /// Position in launch order (0, 1, 2).
    public var rank: Int {
        switch self {
        case .beforeFirstFrame: return 0
        case .afterFirstFrame: return 1
        case .idle: return 2
        }
    }

    public static func < (lhs: LaunchPhase, rhs: LaunchPhase) -> Bool { lhs.rank < rhs.rank }
}
