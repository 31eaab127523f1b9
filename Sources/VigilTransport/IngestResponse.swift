import Foundation

/// The body of a `200` answer to `POST /api/v1/events` (see `docs/api.md`): which event ids
/// the server accepted and which events it rejected, with reasons.
public struct IngestResponse: Sendable, Hashable {
    /// One rejected event.
    public struct Rejection: Sendable, Hashable {
        /// Position of the event in the batch (line number of the JSON-lines body).
        public var index: Int?
        /// The event's id, when the server could read it.
        public var id: String?
        /// Why, e.g. `payload.durationMs: expected Double`.
        public var reason: String

        /// A rejection of the event at `index` (and/or with `id`).
        public init(index: Int?, id: String?, reason: String) {
            self.index = index
            self.id = id
            self.reason = reason
        }
    }

    /// Ids of events stored (or already stored earlier).
    public var accepted: [String]
    /// Events that will never be accepted.
    public var rejected: [Rejection]

    /// An answer with the given lists.
    public init(accepted: [String], rejected: [Rejection] = []) {
        self.accepted = accepted
        self.rejected = rejected
    }

    /// Largest body read, in bytes.
    public static let maximumBodyBytes = 8 << 20

    /// Reads a response body. `accepted` is required; `rejected` may be absent; a rejection
    /// without a reason gets `"no reason given"`. Throws ``IngestResponseError`` for an empty
    /// body, an HTML page or anything else that is not this JSON object.
    public static func parse(_ body: Data) throws(IngestResponseError) -> IngestResponse {
        guard body.count <= maximumBodyBytes else { throw .tooLarge(body.count) }
        guard body.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { throw .empty }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: body)
        } catch {
            let start = String(decoding: body.prefix(40), as: UTF8.self)
            throw .notJSON(start)
        }
        guard let root = object as? [String: Any] else { throw .wrongShape("the body is not a JSON object") }
        guard let acceptedValues = root["accepted"] as? [Any] else { throw .wrongShape("accepted: missing or not an array") }
        var accepted: [String] = []
        accepted.reserveCapacity(acceptedValues.count)
        for (index, value) in acceptedValues.enumerated() {
            guard let id = value as? String else { throw .wrongShape("accepted[\(index)]: not a string") }
            accepted.append(id)
        }
        var rejected: [Rejection] = []
        if let value = root["rejected"], !(value is NSNull) {
            guard let entries = value as? [Any] else { throw .wrongShape("rejected: not an array") }
            for (position, entry) in entries.enumerated() {
                guard let fields = entry as? [String: Any] else { throw .wrongShape("rejected[\(position)]: not an object") }
                let index = (fields["index"] as? NSNumber).flatMap { number -> Int? in
                    let double = number.doubleValue
                    return double.rounded() == double && abs(double) < 1e15 ? Int(double) : nil
                }
                let id = fields["id"] as? String
                let reason = (fields["reason"] as? String).map { String($0.prefix(200)) } ?? "no reason given"
                rejected.append(Rejection(index: index, id: id, reason: reason))
            }
        }
        return IngestResponse(accepted: accepted, rejected: rejected)
    }
}

/// Why an ingest response body could not be read.
public enum IngestResponseError: Error, Sendable, Hashable {
    /// The body was empty or only whitespace.
    case empty
    /// Not JSON (an HTML error page, a proxy's text); carries the first bytes.
    case notJSON(String)
    /// JSON, but not the documented object; says which field.
    case wrongShape(String)
    /// Over ``IngestResponse/maximumBodyBytes``.
    case tooLarge(Int)
}
