/// Why a set of launch tasks is not a valid graph: every problem found, each naming the tasks
/// involved, so one attempt shows everything to fix.
public struct LaunchGraphError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The problems, in the order they were found (ids first, then dependencies, then cycles).
    public var problems: [LaunchGraphProblem]

    /// An error with the given problems.
    public init(_ problems: [LaunchGraphProblem]) { self.problems = problems }

    public var description: String {
        "invalid launch graph: " + problems.map(\.description).joined(separator: "; ")
    }
}
