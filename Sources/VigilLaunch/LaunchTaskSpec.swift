import Foundation

/// The declared shape of a launch task: everything about it except the work it does.
///
/// The runner's scheduling decisions, the virtual-time simulator and the analysis all work on
/// specs, so a graph read from a file schedules exactly like the same graph registered in code.
public struct LaunchTaskSpec: Hashable, Sendable {
    /// Unique name of the task: 1 to 128 UTF-8 bytes, no whitespace, control characters or
    /// commas (ids are joined with commas in span attributes).
    public var id: String
    /// Ids of the tasks that must succeed before this one starts.
    public var dependencies: [String]
    /// Where the task runs.
    public var lane: LaunchLane
    /// When the task may start.
    public var phase: LaunchPhase
    /// Higher runs first among ready tasks competing for a core (the main lane included);
    /// a serial lane keeps its registration order regardless.
    public var priority: Int
    /// How long, in milliseconds from its start, the runner waits for the task before it gives
    /// up on it: its dependents are skipped, the task itself is never interrupted.
    public var timeoutMs: Double?
    /// Expected run time in milliseconds (e.g. measured by the last launch); used only to rank
    /// ready tasks by the length of the path they unblock. Tasks without one count 1 ms.
    public var estimatedMs: Double?
    /// Whether the work is `async` and holds no core while it waits (see
    /// ``LaunchTask/suspending(_:lane:phase:priority:dependencies:timeout:estimatedMs:work:)``).
    public var suspends: Bool

    /// A spec; see the properties for the meaning of each field.
    public init(id: String, dependencies: [String] = [], lane: LaunchLane = .concurrent,
                phase: LaunchPhase = .beforeFirstFrame, priority: Int = 0, timeoutMs: Double? = nil,
                estimatedMs: Double? = nil, suspends: Bool = false) {
        self.id = id
        self.dependencies = dependencies
        self.lane = lane
        self.phase = phase
        self.priority = priority
        self.timeoutMs = timeoutMs
        self.estimatedMs = estimatedMs
        self.suspends = suspends
    }
}

extension DispatchTimeInterval {
    /// The interval in milliseconds; nil for `.never`.
    var launchMilliseconds: Double? {
        switch self {
        case .seconds(let value): return Double(value) * 1000
        case .milliseconds(let value): return Double(value)
        case .microseconds(let value): return Double(value) / 1000
        case .nanoseconds(let value): return Double(value) / 1_000_000
        case .never: return nil
        @unknown default: return nil
        }
    }
}
