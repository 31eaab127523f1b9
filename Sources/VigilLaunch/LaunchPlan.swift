/// A validated, indexed launch graph shape: what the scheduler, the simulator and the analysis
/// read. Built from specs alone, so a graph file and a graph in code plan the same way.
///
/// Building one costs O(tasks + dependencies); it is immutable and `Sendable` afterwards.
public struct LaunchPlan: Sendable {
    /// Longest accepted task id, in UTF-8 bytes.
    public static let maxIdLength = 128

    /// The tasks, in registration order; a task's position is its index everywhere else.
    public let specs: [LaunchTaskSpec]
    /// Task index by id.
    public let indexById: [String: Int]
    /// Indices of each task's dependencies (duplicates removed).
    public let dependencies: [[Int]]
    /// Indices of the tasks that depend on each task.
    public let dependents: [[Int]]
    /// Names of the serial lanes, in order of first appearance.
    public let serialLanes: [String]
    /// Each task's serial lane index, nil when it is on the main or concurrent lane.
    public let serialLaneOf: [Int?]
    /// Each serial lane's tasks in the order they run: by phase, then registration.
    public let serialLaneOrder: [[Int]]
    /// The task that runs just before each task on its serial lane.
    public let serialLanePredecessor: [Int?]
    /// All tasks in an order that respects dependencies and serial-lane order.
    public let topologicalOrder: [Int]
    /// For each task, the longest chain of estimated run times it starts (itself included), in
    /// ms: the runner starts the ready task with the longest one first among equal priorities.
    public let bottomLevel: [Double]

    /// Number of tasks.
    public var count: Int { specs.count }

    /// Validates `specs` and indexes them.
    ///
    /// - Throws: ``LaunchGraphError`` listing every invalid id, duplicate id, missing or
    ///   later-phase dependency, async main-lane task, invalid duration, and one cycle.
    public init(_ specs: [LaunchTaskSpec]) throws(LaunchGraphError) {
        var problems: [LaunchGraphProblem] = []
        var indexById: [String: Int] = [:]
        var reportedDuplicates: Set<String> = []
        for (index, spec) in specs.enumerated() {
            if let reason = LaunchPlan.idProblem(spec.id) {
                problems.append(.invalidId(index: index, id: spec.id, reason: reason))
            }
            if indexById[spec.id] != nil {
                if reportedDuplicates.insert(spec.id).inserted { problems.append(.duplicateId(spec.id)) }
            } else {
                indexById[spec.id] = index
            }
            if case .serial(let name) = spec.lane, name.isEmpty { problems.append(.emptyLaneName(task: spec.id)) }
            if spec.suspends, spec.lane == .main { problems.append(.suspendingOnMainLane(task: spec.id)) }
            if let timeout = spec.timeoutMs, !(timeout.isFinite && timeout > 0) {
                problems.append(.invalidDuration(task: spec.id, field: "timeout", value: timeout))
            }
            if let estimate = spec.estimatedMs, !(estimate.isFinite && estimate >= 0) {
                problems.append(.invalidDuration(task: spec.id, field: "estimatedMs", value: estimate))
            }
        }

        var dependencies: [[Int]] = Array(repeating: [], count: specs.count)
        var dependents: [[Int]] = Array(repeating: [], count: specs.count)
        for (index, spec) in specs.enumerated() {
            var seen: Set<Int> = []
            for dependencyId in spec.dependencies {
                guard let dependency = indexById[dependencyId] else {
                    problems.append(.missingDependency(task: spec.id, dependency: dependencyId))
                    continue
                }
                guard seen.insert(dependency).inserted else { continue }
                if specs[dependency].phase > spec.phase {
                    problems.append(.laterPhaseDependency(task: spec.id, phase: spec.phase, dependency: dependencyId,
                                                          dependencyPhase: specs[dependency].phase))
                }
                dependencies[index].append(dependency)
                dependents[dependency].append(index)
            }
        }

        var serialLanes: [String] = []
        var laneIndexByName: [String: Int] = [:]
        var serialLaneOf: [Int?] = Array(repeating: nil, count: specs.count)
        var serialLaneOrder: [[Int]] = []
        for (index, spec) in specs.enumerated() {
            guard case .serial(let name) = spec.lane else { continue }
            let lane: Int
            if let existing = laneIndexByName[name] {
                lane = existing
            } else {
                lane = serialLanes.count
                laneIndexByName[name] = lane
                serialLanes.append(name)
                serialLaneOrder.append([])
            }
            serialLaneOf[index] = lane
            serialLaneOrder[lane].append(index)
        }
        var serialLanePredecessor: [Int?] = Array(repeating: nil, count: specs.count)
        for lane in serialLaneOrder.indices {
            // Built in registration order; the sort keeps it within a phase.
            serialLaneOrder[lane].sort { (specs[$0].phase.rank, $0) < (specs[$1].phase.rank, $1) }
            for (position, task) in serialLaneOrder[lane].enumerated() where position > 0 {
                serialLanePredecessor[task] = serialLaneOrder[lane][position - 1]
            }
        }

        // Kahn's algorithm over dependency and lane-order edges.
        var waitingOn = Array(repeating: 0, count: specs.count)
        for index in specs.indices {
            waitingOn[index] = dependencies[index].count + (serialLanePredecessor[index] == nil ? 0 : 1)
        }
        var successors = dependents
        for (index, predecessor) in serialLanePredecessor.enumerated() {
            if let predecessor { successors[predecessor].append(index) }
        }
        var order: [Int] = []
        order.reserveCapacity(specs.count)
        var queue = specs.indices.filter { waitingOn[$0] == 0 }
        var head = 0
        while head < queue.count {
            let task = queue[head]
            head += 1
            order.append(task)
            for next in successors[task] {
                waitingOn[next] -= 1
                if waitingOn[next] == 0 { queue.append(next) }
            }
        }
        if order.count < specs.count, reportedDuplicates.isEmpty {
            problems.append(LaunchPlan.findCycle(specs: specs, remaining: waitingOn, dependencies: dependencies,
                                                 serialLanePredecessor: serialLanePredecessor,
                                                 serialLaneOf: serialLaneOf, serialLanes: serialLanes))
        }
        guard problems.isEmpty else { throw LaunchGraphError(problems) }

        var bottomLevel = Array(repeating: 0.0, count: specs.count)
        for task in order.reversed() {
            let below = successors[task].map { bottomLevel[$0] }.max() ?? 0
            bottomLevel[task] = (specs[task].estimatedMs ?? 1) + below
        }

        self.specs = specs
        self.indexById = indexById
        self.dependencies = dependencies
        self.dependents = dependents
        self.serialLanes = serialLanes
        self.serialLaneOf = serialLaneOf
        self.serialLaneOrder = serialLaneOrder
        self.serialLanePredecessor = serialLanePredecessor
        self.topologicalOrder = order
        self.bottomLevel = bottomLevel
    }

    /// The index of the task called `id`.
    public func index(of id: String) -> Int? { indexById[id] }

    /// Tasks that must end before `task` starts: its dependencies and its serial-lane predecessor.
    func predecessors(of task: Int) -> [Int] {
        if let predecessor = serialLanePredecessor[task] { return dependencies[task] + [predecessor] }
        return dependencies[task]
    }

    /// Why `id` is not a valid task id, or nil when it is.
    static func idProblem(_ id: String) -> String? {
        if id.isEmpty { return "it is empty" }
        if id.utf8.count > maxIdLength { return "it is longer than \(maxIdLength) bytes" }
        for scalar in id.unicodeScalars {
            if scalar == "," { return "it contains a comma" }
            if scalar.properties.isWhitespace { return "it contains whitespace" }
            if scalar.value < 0x20 || scalar.value == 0x7F { return "it contains a control character" }
        }
        return nil
    }

    /// Finds one cycle among the tasks Kahn's algorithm could not order. Each of them waits for
    /// at least one other unordered task, so walking back through unordered predecessors must
    /// revisit a task; the walk between the two visits is a cycle.
    private static func findCycle(specs: [LaunchTaskSpec], remaining: [Int], dependencies: [[Int]],
                                  serialLanePredecessor: [Int?], serialLaneOf: [Int?],
                                  serialLanes: [String]) -> LaunchGraphProblem {
        func unorderedPredecessor(of task: Int) -> (task: Int, viaLane: Bool)? {
            if let dependency = dependencies[task].first(where: { remaining[$0] > 0 }) { return (dependency, false) }
            if let predecessor = serialLanePredecessor[task], remaining[predecessor] > 0 { return (predecessor, true) }
            return nil
        }
        guard let start = remaining.indices.first(where: { remaining[$0] > 0 }) else {
            return .cycle(tasks: [], laneOrderSteps: [])
        }
        var positionInWalk: [Int: Int] = [:]
        var walk: [(task: Int, viaLane: Bool)] = []
        var current = start
        var viaLane = false
        while positionInWalk[current] == nil {
            positionInWalk[current] = walk.count
            walk.append((current, viaLane))
            guard let previous = unorderedPredecessor(of: current) else { break }
            current = previous.task
            viaLane = previous.viaLane
        }
        // walk[k] waits for walk[k+1]; the cycle runs from the first visit of `current` on.
        let firstVisit = positionInWalk[current] ?? 0
        var loop = Array(walk[firstVisit...])
        loop.append((current, viaLane))
        // Execution order: the awaited task first.
        let ordered = loop.reversed().map(\.task)
        var laneSteps: [String] = []
        for step in 1..<loop.count where loop[step].viaLane {
            let later = loop[step - 1].task
            let earlier = loop[step].task
            let lane = serialLaneOf[later].map { serialLanes[$0] } ?? "?"
            laneSteps.append("\"\(specs[later].id)\" runs after \"\(specs[earlier].id)\" on serial lane \"\(lane)\"")
        }
        return .cycle(tasks: ordered.map { specs[$0].id }, laneOrderSteps: laneSteps.reversed())
    }
}
