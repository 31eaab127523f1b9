/// A failure answered with an HTTP status and the error body `{"error": code, "reason": text}`.
///
/// Handlers throw these; the server turns them into responses. Any other error thrown by a
/// handler becomes a `500 internal_error` carrying the error's description.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// The status code.
    public var status: Int
    /// A stable, machine-readable code, e.g. `unauthorized`, `body_too_large`.
    public var code: String
    /// Human-readable explanation of what was wrong and, when possible, what to do.
    public var reason: String
    /// Extra headers, e.g. `Retry-After` on a 429.
    public var headers: [(String, String)]
    /// Every problem as `(field, reason)`, answered as `"issues": [{"field", "reason"}]` when
    /// not empty (a configuration document with several mistakes).
    public var issues: [(String, String)]

    /// Creates an error answer.
    public init(status: Int, code: String, reason: String, headers: [(String, String)] = [], extra issues: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.reason = reason
        self.headers = headers
        self.issues = issues
    }

    public var description: String { "\(status) \(code): \(reason)" }

    /// `400 bad_request`.
    public static func badRequest(_ reason: String, code: String = "bad_request") -> HTTPError {
        HTTPError(status: 400, code: code, reason: reason)
    }

    /// `401 unauthorized`.
    public static func unauthorized(_ reason: String) -> HTTPError {
        HTTPError(status: 401, code: "unauthorized", reason: reason, headers: [("WWW-Authenticate", "Bearer")])
    }

    /// `404 not_found`.
    public static func notFound(_ reason: String) -> HTTPError {
        HTTPError(status: 404, code: "not_found", reason: reason)
    }

    /// `413 body_too_large`.
    public static func tooLarge(_ reason: String) -> HTTPError {
        HTTPError(status: 413, code: "body_too_large", reason: reason)
    }

    /// `415 unsupported_media_type`.
    public static func unsupportedMediaType(_ reason: String) -> HTTPError {
        HTTPError(status: 415, code: "unsupported_media_type", reason: reason)
    }
}
