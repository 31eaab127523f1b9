/// Why one event of a batch was not accepted: the answer's `rejected` entries.
public struct EventRejection: Error, Sendable, Hashable {
    /// The class of a rejection, for metrics.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        /// Not decodable as a schema-v1 event (bad JSON, wrong type, missing field).
        case malformed
        /// Decoded, but a value is impossible (negative duration, end before start…).
        case invalid
    }

    /// Position of the event in the batch (array index, or line number among non-empty lines).
    public var index: Int
    /// The event's `id` as sent, when it could be read.
    public var id: String?
    /// What was wrong, starting with the field path (`payload.durationMs: …`).
    public var reason: String
    /// The class of the reason.
    public var category: Category

    /// Creates a rejection.
    public init(index: Int, id: String?, reason: String, category: Category = .malformed) {
        self.index = index
        self.id = id
        self.reason = reason
        self.category = category
    }
}
