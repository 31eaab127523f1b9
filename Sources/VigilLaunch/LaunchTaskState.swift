/// Where a launch task stands.
public enum LaunchTaskState: Hashable, Sendable, CustomStringConvertible {
    /// Its dependencies have not all succeeded yet, or its phase has not begun.
    case waiting
    /// It could start and waits for a core, the main thread or its serial lane.
    case ready
    /// It was handed to a thread (or started as a Swift task) and has not returned.
    case running
    /// It returned normally.
    case succeeded
    /// It threw; the message is the error's description.
    case failed(String)
    /// It ran longer than its timeout; its dependents were skipped. `stillRunning` is true
    /// until its work actually returns (the runner never interrupts it).
    case timedOut(limitMs: Double, stillRunning: Bool)
    /// It never ran because `dependency` did not succeed; `reason` says why, down to the root.
    case skipped(dependency: String, reason: String)

    /// Whether the launch no longer waits for it: it succeeded, failed, timed out or was skipped.
    public var isSettled: Bool {
        switch self {
        case .waiting, .ready, .running: return false
        case .succeeded, .failed, .timedOut, .skipped: return true
        }
    }

    /// One word: `waiting`, `ready`, `running`, `succeeded`, `failed`, `timedOut`, `skipped`.
    public var label: String {
        switch self {
        case .waiting: return "waiting"
        case .ready: return "ready"
        case .running: return "running"
        case .succeeded: return "succeeded"
        case .failed: return "failed"
        case .timedOut: return "timedOut"
        case .skipped: return "skipped"
        }
    }

    public var description: String {
        switch self {
        case .failed(let message): return "failed: \(message)"
        case .timedOut(let limit, let stillRunning):
            return "timed out after \(LaunchTaskState.format(limit)) ms" + (stillRunning ? " (still running)" : "")
        case .skipped(_, let reason): return "skipped: \(reason)"
        default: return label
        }
    }

    static func format(_ milliseconds: Double) -> String {
        milliseconds == milliseconds.rounded() ? String(Int64(milliseconds)) : String(format: "%.1f", milliseconds)
    }
}
