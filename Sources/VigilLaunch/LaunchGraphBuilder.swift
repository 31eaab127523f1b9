/// Collects ``LaunchTask``s written one per line, with `if`, `switch` and `for` allowed:
///
/// ```swift
/// let graph = try LaunchGraph {
///     LaunchTask("config") { try Config.load() }
///     LaunchTask("database", lane: .serial("storage"), dependencies: ["config"]) { try Database.open() }
///     LaunchTask.onMain("window", dependencies: ["config"]) { AppWindow.install() }
///     if Features.analytics { LaunchTask("analytics", phase: .afterFirstFrame) { Analytics.start() } }
/// }
/// ```
@resultBuilder
public enum LaunchGraphBuilder {
    /// One task on a line.
    public static func buildExpression(_ task: LaunchTask) -> [LaunchTask] { [task] }
    /// An array of tasks on a line.
    public static func buildExpression(_ tasks: [LaunchTask]) -> [LaunchTask] { tasks }
    /// The lines of a block, in order.
    public static func buildBlock(_ parts: [LaunchTask]...) -> [LaunchTask] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [LaunchTask]?) -> [LaunchTask] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [LaunchTask]) -> [LaunchTask] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [LaunchTask]) -> [LaunchTask] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[LaunchTask]]) -> [LaunchTask] { parts.flatMap { $0 } }
    /// An `if #available` branch.
    public static func buildLimitedAvailability(_ part: [LaunchTask]) -> [LaunchTask] { part }
}
