import Foundation

/// JSON coding of ``Event``s in the schema's wire form: single events, JSON arrays and JSON
/// lines (one event per line).
///
/// Encoders and decoders are created per call; `JSONEncoder` is cheap to make and not
/// `Sendable`, so sharing one across threads would need a lock.
public enum EventJSON {
    /// A `JSONEncoder` that writes dates as RFC 3339 UTC with milliseconds.
    public static func makeEncoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                                          : [.withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    /// A `JSONDecoder` that reads RFC 3339 dates (with or without a fraction, `Z` or an offset)
    /// at the schema's precision: a finer fraction is rounded to the millisecond and a date
    /// outside the years 0000 to 9999 UTC is an error, so that what is decoded encodes back
    /// to itself (see ``Timestamp/schemaDate(_:)``).
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let parsed = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected an RFC 3339 timestamp, got \"\(text.prefix(40))\"")
            }
            guard let date = Timestamp.schemaDate(parsed) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "the timestamp \"\(text.prefix(40))\" is outside the years 0000 to 9999 UTC")
            }
            return date
        }
        return decoder
    }

    /// Encodes one event as compact JSON.
    public static func encode(_ event: Event) throws -> Data {
        try makeEncoder().encode(event)
    }

    /// Encodes events as JSON lines: one compact JSON object per line, each line ending in `\n`.
    public static func encodeLines(_ events: [Event]) throws -> Data {
        let encoder = makeEncoder()
        var out = Data()
        for event in events {
            out.append(try encoder.encode(event))
            out.append(0x0A)
        }
        return out
    }

    /// Decodes one event.
    public static func decode(_ data: Data) throws -> Event {
        try makeDecoder().decode(Event.self, from: data)
    }

    /// Decodes a batch given either as a JSON array of events or as JSON lines, judging each
    /// event on its own: a malformed event yields a ``EventDecodingFailure`` in its slot and
    /// does not spoil its neighbours.
    ///
    /// Throws only when the body as a whole is neither a JSON array nor JSON lines.
    public static func decodeBatch(_ data: Data) throws -> [Result<Event, EventDecodingFailure>] {
        let decoder = makeDecoder()
        let firstByte = data.first(where: { !isJSONWhitespace($0) })
        if firstByte == UInt8(ascii: "[") {
            let slots: [LenientSlot]
            do {
                slots = try decoder.decode([LenientSlot].self, from: data)
            } catch {
                throw EventBatchError.malformedBody(describe(error))
            }
            return slots.enumerated().map { index, slot in
                slot.result.mapError { EventDecodingFailure(index: index, id: $0.id, reason: $0.reason) }
            }
        }
        var results: [Result<Event, EventDecodingFailure>] = []
        var index = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if line.allSatisfy(isJSONWhitespace) { continue }
            do {
                let slot = try decoder.decode(LenientSlot.self, from: Data(line))
                results.append(slot.result.mapError {
                    EventDecodingFailure(index: index, id: $0.id, reason: $0.reason)
                })
            } catch {
                results.append(.failure(EventDecodingFailure(index: index, id: nil, reason: describe(error))))
            }
            index += 1
        }
        if results.isEmpty, firstByte != nil {
            throw EventBatchError.malformedBody("expected a JSON array of events or JSON lines")
        }
        return results
    }

    /// A readable, single-line description of a decoding error with its key path.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the document" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): missing \(type) value"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing required field"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// Why one event of a batch could not be decoded.
public struct EventDecodingFailure: Error, Sendable, Hashable {
    /// Position of the event in the batch (array index or line number among non-empty lines).
    public var index: Int
    /// The event's `id` when it could be read, so the sender can match the rejection.
    public var id: String?
    /// What was wrong, with the key path.
    public var reason: String
}

/// Why a whole batch body could not be read.
public enum EventBatchError: Error, Sendable, Hashable {
    /// Neither a JSON array nor JSON lines; the associated text says where parsing failed.
    case malformedBody(String)
}

/// Decodes one array slot, keeping the failure (and the id, when readable) instead of throwing.
private struct LenientSlot: Decodable {
    struct Failure: Error { var id: String?; var reason: String }
    struct IdOnly: Decodable { var id: String? }

    let result: Result<Event, Failure>

    init(from decoder: any Decoder) throws {
        do {
            result = .success(try Event(from: decoder))
        } catch {
            let id = (try? IdOnly(from: decoder))?.id.map { String($0.prefix(64)) }
            result = .failure(Failure(id: id, reason: EventJSON.describe(error)))
        }
    }
}
