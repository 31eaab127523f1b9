/// A validated set of launch tasks, ready for a ``LaunchRunner``.
///
/// ```swift
/// let graph = try LaunchGraph {
///     LaunchTask("config") { try Config.load() }
///     LaunchTask.onMain("window", dependencies: ["config"]) { AppWindow.install() }
/// }
/// ```
public struct LaunchGraph: Sendable {
    /// The tasks, in registration order.
    public let tasks: [LaunchTask]
    /// Their validated shape.
    public let plan: LaunchPlan

    /// Validates `tasks`.
    ///
    /// - Throws: ``LaunchGraphError`` naming every duplicate id, missing dependency, cycle and
    ///   other problem (see ``LaunchPlan/init(_:)``).
    public init(_ tasks: [LaunchTask]) throws(LaunchGraphError) {
        plan = try LaunchPlan(tasks.map(\.spec))
        self.tasks = tasks
    }

    /// Validates the tasks the builder collects.
    public init(@LaunchGraphBuilder _ content: () -> [LaunchTask]) throws(LaunchGraphError) {
        try self.init(content())
    }

    /// Schedules the graph in virtual time with each task's ``LaunchTaskSpec/estimatedMs``
    /// (1 ms when absent) as its duration: what the runner would do if the estimates held.
    public func simulate(cores: Int) -> LaunchSimulation {
        LaunchSimulator.simulate(plan, durationsMs: plan.specs.map { $0.estimatedMs ?? 1 }, cores: cores)
    }
}
