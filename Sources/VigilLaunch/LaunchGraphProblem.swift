/// One problem with a launch graph.
public enum LaunchGraphProblem: Hashable, Sendable, CustomStringConvertible {
    /// The task at `index` has an id that is empty, too long or holds a forbidden character.
    case invalidId(index: Int, id: String, reason: String)
    /// Two or more tasks share this id.
    case duplicateId(String)
    /// `task` depends on an id no task has.
    case missingDependency(task: String, dependency: String)
    /// `task` depends on `dependency`, which may only start in a later phase.
    case laterPhaseDependency(task: String, phase: LaunchPhase, dependency: String, dependencyPhase: LaunchPhase)
    /// An `async` task was put on the main lane.
    case suspendingOnMainLane(task: String)
    /// A serial lane with an empty name.
    case emptyLaneName(task: String)
    /// A timeout or estimate that is negative, zero (timeouts) or not finite.
    case invalidDuration(task: String, field: String, value: Double)
    /// Tasks that wait for each other: each task in `tasks` waits for the one before it, and
    /// the last equals the first. `laneOrderSteps` lists the waits that come from a serial
    /// lane's registration order rather than a declared dependency.
    case cycle(tasks: [String], laneOrderSteps: [String])

    public var description: String {
        switch self {
        case .invalidId(let index, let id, let reason):
            return "task #\(index) has an invalid id \"\(id.prefix(40))\": \(reason)"
        case .duplicateId(let id):
            return "duplicate task id \"\(id)\""
        case .missingDependency(let task, let dependency):
            return "task \"\(task)\" depends on \"\(dependency)\", which is not in the graph"
        case .laterPhaseDependency(let task, let phase, let dependency, let dependencyPhase):
            return "task \"\(task)\" (\(phase.rawValue)) depends on \"\(dependency)\", "
                + "which only starts in the later phase \(dependencyPhase.rawValue)"
        case .suspendingOnMainLane(let task):
            return "task \"\(task)\" is async and cannot run on the main lane"
        case .emptyLaneName(let task):
            return "task \"\(task)\" is on a serial lane with an empty name"
        case .invalidDuration(let task, let field, let value):
            return "task \"\(task)\": \(field) \(value) is not a valid duration"
        case .cycle(let tasks, let laneOrderSteps):
            let path = tasks.map { "\"\($0)\"" }.joined(separator: " → ")
            let note = laneOrderSteps.isEmpty ? "" : " (" + laneOrderSteps.joined(separator: ", ") + ")"
            return "dependency cycle: \(path)\(note)"
        }
    }
}
