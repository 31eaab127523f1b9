/// Where a launch task runs.
///
/// - `main`: on the main thread (the main actor), one task at a time.
/// - `concurrent`: on the runner's bounded pool, beside any other concurrent task.
/// - `serial(name)`: one task of the lane at a time, in the order the tasks were registered
///   (earlier phases first), on the pool. Use it for initialisers that must not overlap and
///   must keep their order, like the migrations of one database.
public enum LaunchLane: Hashable, Sendable, CustomStringConvertible {
    /// The main thread, one task at a time; picks its next task by priority.
    case main
    /// The bounded pool, no ordering beyond dependencies.
    case concurrent
    /// A named serial lane: one task at a time, in registration order.
    case serial(String)

    /// `main`, `concurrent` or `serial:NAME`: the form used by graph files and span attributes.
    public var description: String {
        switch self {
        case .main: return "main"
        case .concurrent: return "concurrent"
        case .serial(let name): return "serial:" + name
        }
    }

    /// Parses the ``description`` form; nil for anything else (including an empty lane name).
    public init?(parsing text: String) {
        switch text {
        case "main": self = .main
        case "concurrent": self = .concurrent
        default:
            guard text.hasPrefix("serial:") else { return nil }
            let name = String(text.dropFirst("serial:".count))
            guard !name.isEmpty else { return nil }
            self = .serial(name)
        }
    }
}
