import Foundation

/// Encoding and decoding of OTLP/HTTP JSON documents (`Content-Type: application/json`).
public enum OTLPJSON {
    /// Encodes a request or response compactly.
    public static func encode<Document: Encodable>(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    /// Decodes a traces request; the error text names the JSON path that failed.
    public static func decodeTraces(_ data: Data) throws(OTLPDecodingError) -> OTLPTraceRequest {
        do {
            return try JSONDecoder().decode(OTLPTraceRequest.self, from: data)
        } catch {
            throw OTLPDecodingError(describing: error)
        }
    }

    /// Decodes a logs request.
    public static func decodeLogs(_ data: Data) throws(OTLPDecodingError) -> OTLPLogRequest {
        do {
            return try JSONDecoder().decode(OTLPLogRequest.self, from: data)
        } catch {
            throw OTLPDecodingError(describing: error)
        }
    }
}

/// An OTLP/JSON document that could not be read, with the path and the reason.
public struct OTLPDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// JSON path of the failure, e.g. `resourceSpans[0].scopeSpans[0].spans[2].kind`.
    public var path: String
    /// What was wrong.
    public var reason: String

    /// An error at `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(describing error: any Error) {
        switch error {
        case DecodingError.dataCorrupted(let context):
            self.init(path: Self.path(context.codingPath), reason: Self.reason(context))
        case DecodingError.keyNotFound(let key, let context):
            self.init(path: Self.path(context.codingPath + [key]), reason: "missing")
        case DecodingError.typeMismatch(let type, let context):
            self.init(path: Self.path(context.codingPath), reason: "expected \(type)")
        case DecodingError.valueNotFound(let type, let context):
            self.init(path: Self.path(context.codingPath), reason: "expected \(type), found null")
        default:
            self.init(path: "", reason: String(describing: error))
        }
    }

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }

    private static func reason(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}
