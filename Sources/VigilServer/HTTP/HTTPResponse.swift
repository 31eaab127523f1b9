import Foundation

/// An HTTP response: a status, headers and a body held in memory.
public struct HTTPResponse: Sendable {
    /// Status code, e.g. 200.
    public var status: Int
    /// Headers in the order they are sent.
    public var headers: [(String, String)]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body that is already encoded.
    public static func json(_ body: Data, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: body)
    }

    /// `value` encoded with `JSONEncoder` (sorted keys, ISO 8601 dates as the event schema writes them).
    public static func json<T: Encodable>(encoding value: T, status: Int = 200) -> HTTPResponse {
        do {
            return .json(try ResponseJSON.encoder.encode(value), status: status)
        } catch {
            return .error(HTTPError(status: 500, code: "encoding_failed", reason: "response could not be encoded: \(error)"))
        }
    }

    /// The error body every endpoint uses: `{"error": code, "reason": text}`, plus the error's headers.
    public static func error(_ error: HTTPError) -> HTTPResponse {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("error"); writer.string(error.code)
        writer.key("reason"); writer.string(error.reason)
        if !error.issues.isEmpty {
            writer.key("issues")
            writer.beginArray()
            for (field, reason) in error.issues {
                writer.beginObject()
                writer.key("field"); writer.string(field)
                writer.key("reason"); writer.string(reason)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
        var response = HTTPResponse.json(writer.data, status: error.status)
        response.headers.append(contentsOf: error.headers)
        return response
    }

    /// An HTML page.
    public static func html(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8"),
                                               ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; script-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"),
                                               ("X-Content-Type-Options", "nosniff")],
                     body: Data(text.utf8))
    }

    /// Plain text.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Data(text.utf8))
    }

    /// A redirect to `location` (303 See Other, so a POST is followed by a GET).
    public static func redirect(to location: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: 303, headers: [("Location", location)] + headers)
    }

    /// Adds a header.
    public func adding(_ name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }
}

/// The encoder used for query-endpoint answers.
enum ResponseJSON {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }
}
