/// Severity of a `log` event, as OpenTelemetry's severity names.
public enum LogLevel: String, Codable, Sendable, CaseIterable {
    case trace, debug, info, warn, error, fatal
}

/// Payload of a `log` event: a message with attributes.
public struct LogPayload: Codable, Sendable, Hashable {
    /// Severity.
    public var level: LogLevel
    /// The message; newlines and tabs are kept, other control characters are removed.
    public var message: String
    /// Structured attributes.
    public var attributes: [String: AttributeValue]?

    public init(level: LogLevel, message: String, attributes: [String: AttributeValue]? = nil) {
        self.level = level
        self.message = message
        self.attributes = attributes
    }
}
