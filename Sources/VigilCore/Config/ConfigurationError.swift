/// Thrown by ``VigilConfiguration/validate()`` with every value that is out of range.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Each offending field.
    public var problems: [ConfigurationProblem]

    /// An error listing `problems`.
    public init(problems: [ConfigurationProblem]) { self.problems = problems }

    public var description: String {
        "invalid configuration: " + problems.map(\.description).joined(separator: "; ")
    }
}
