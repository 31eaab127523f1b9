/// One span an OTLP import refused, with where it was in the document and why.
public struct OTLPImportProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Path of the span, e.g. `resourceSpans[0].scopeSpans[1].spans[3]`.
    public var path: String
    /// The offending field, e.g. `traceId`.
    public var field: String
    /// What was wrong.
    public var reason: String

    /// A problem at `path`.
    public init(path: String, field: String, reason: String) {
        self.path = path
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(path).\(field): \(reason)" }
}
