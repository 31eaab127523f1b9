/// Why a remote configuration document was refused, or one value in it was out of range.
///
/// `field` is the key path in the document (`upload.maxTries`, `sampling.network`), or
/// `the document` when the problem is the whole body.
public struct RemoteConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is.
    public enum Kind: String, Sendable, Hashable {
        /// The body is larger than ``RemoteConfig/maximumDocumentBytes``.
        case tooLarge
        /// The body is not a JSON object.
        case malformed
        /// A field holds a value of the wrong JSON type (a string where a number belongs).
        case wrongType
        /// A number lies outside its allowed range; the SDK clamps it, the server refuses it.
        case outOfRange
    }

    /// The kind of problem.
    public var kind: Kind
    /// Key path of the offending field.
    public var field: String
    /// Human-readable explanation, including the allowed range where there is one.
    public var reason: String

    /// Makes an error.
    public init(_ kind: Kind, field: String, reason: String) {
        self.kind = kind
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
