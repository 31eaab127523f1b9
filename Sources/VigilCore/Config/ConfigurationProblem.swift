/// One configuration value outside its valid range.
public struct ConfigurationProblem: Sendable, Hashable, CustomStringConvertible {
    /// Dotted path of the field, e.g. `hang.thresholdMs`.
    public var field: String
    /// The offending value as text.
    public var value: String
    /// What the field accepts, e.g. `>= 100`.
    public var expected: String

    /// A problem with `field`.
    public init(field: String, value: String, expected: String) {
        self.field = field
        self.value = value
        self.expected = expected
    }

    public var description: String { "\(field) = \(value), expected \(expected)" }
}
