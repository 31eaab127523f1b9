import Foundation
import VigilCore

/// Decodes an ingest body — a JSON array of events or JSON lines — judging each event on its
/// own, like ``EventJSON/decodeBatch(_:)`` and with the same outcomes, but through a
/// ``JSONTape`` instead of `JSONDecoder` (several times faster; `vigil-bench server` measures
/// both), and keeping each event's sub-documents as sent so that a clean event is stored
/// without being encoded again.
public enum EventBatchDecoder {
    /// One event of a batch, decoded.
    public struct Decoded: Sendable {
        /// The event.
        public var event: Event
        /// The `id` exactly as the client wrote it (the answer echoes it, so a client that
        /// sent lowercase ids finds them again).
        public var sentID: String
        /// `payload`, `tags`, `images` and `context` as their JSON text in the body.
        public var rawPayload: String?
        /// `tags` as sent, when present.
        public var rawTags: String?
        /// `images` as sent, when present.
        public var rawImages: String?
        /// `context` as sent, when present.
        public var rawContext: String?
    }

    /// Decodes `data`; throws ``EventBatchError/malformedBody(_:)`` only when the body as a whole
    /// is neither a JSON array nor JSON lines.
    public static func decode(_ data: Data) throws -> [Result<Decoded, EventRejection>] {
        let bytes = [UInt8](data)
        var first = 0
        while first < bytes.count, isWhitespace(bytes[first]) { first += 1 }
        if first == bytes.count { return [] }
        if bytes[first] == UInt8(ascii: "[") {
            let tape: JSONTape
            do {
                tape = try JSONTape(bytes: bytes)
            } catch {
                throw EventBatchError.malformedBody("the document: \(error)")
            }
            guard tape.nodes[0].kind == .array else {
                throw EventBatchError.malformedBody("expected a JSON array of events or JSON lines")
            }
            var results: [Result<Decoded, EventRejection>] = []
            results.reserveCapacity(Int(tape.nodes[0].count))
            var node = 1
            for index in 0..<Int(tape.nodes[0].count) {
                results.append(decodeElement(tape, node: node, index: index, codingPath: [TapeIndexKey(index: index)]))
                node = Int(tape.nodes[node].next)
            }
            return results
        }
        var results: [Result<Decoded, EventRejection>] = []
        var index = 0
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            let line = bytes[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            if line.allSatisfy(isWhitespace) { continue }
            do {
                let tape = try JSONTape(bytes: Array(line))
                results.append(decodeElement(tape, node: 0, index: index, codingPath: []))
            } catch {
                results.append(.failure(EventRejection(index: index, id: nil, reason: "the document: \(error)")))
            }
            index += 1
        }
        return results
    }

    private static func decodeElement(_ tape: JSONTape, node: Int, index: Int,
                                      codingPath: [any CodingKey]) -> Result<Decoded, EventRejection> {
        let sentID: String? = {
            guard tape.nodes[node].kind == .object, let id = tape.member(node, "id"), tape.nodes[id].kind == .string else { return nil }
            return String(tape.string(id).prefix(64))
        }()
        do {
            // Well-formed events take the direct path; anything unusual is judged by Decodable.
            let event: Event
            if let fast = try? EventFastReader(tape: tape).event(node) {
                event = fast
            } else {
                event = try JSONTapeDecoder.decode(Event.self, from: tape, node: node, codingPath: codingPath)
            }
            func raw(_ key: String) -> String? {
                guard let member = tape.member(node, key), tape.nodes[member].kind != .null else { return nil }
                return String(decoding: tape.rawJSON(member), as: UTF8.self)
            }
            return .success(Decoded(event: event, sentID: sentID ?? event.id.canonicalString, rawPayload: raw("payload"),
                                    rawTags: raw("tags"), rawImages: raw("images"), rawContext: raw("context")))
        } catch {
            // The path inside the batch (`[3].payload…`) is dropped: the index says which event.
            return .failure(EventRejection(index: index, id: sentID, reason: describe(error, dropping: codingPath.count)))
        }
    }

    private static func describe(_ error: any Error, dropping prefix: Int) -> String {
        guard prefix > 0, let decoding = error as? DecodingError else { return EventJSON.describe(error) }
        func trim(_ context: DecodingError.Context) -> DecodingError.Context {
            DecodingError.Context(codingPath: Array(context.codingPath.dropFirst(prefix)), debugDescription: context.debugDescription)
        }
        switch decoding {
        case .typeMismatch(let type, let context): return EventJSON.describe(DecodingError.typeMismatch(type, trim(context)))
        case .valueNotFound(let type, let context): return EventJSON.describe(DecodingError.valueNotFound(type, trim(context)))
        case .keyNotFound(let key, let context): return EventJSON.describe(DecodingError.keyNotFound(key, trim(context)))
        case .dataCorrupted(let context): return EventJSON.describe(DecodingError.dataCorrupted(trim(context)))
        @unknown default: return EventJSON.describe(error)
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
