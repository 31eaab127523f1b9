import Foundation

/// One HTTP request as a route handler sees it: the method, the decoded path, the query, the
/// headers and the whole body (already un-gzipped when it came with `Content-Encoding: gzip`).
///
/// Built by ``HTTPServer`` once the body has been received in full and passed its limits.
public struct HTTPRequest: Sendable {
    /// Uppercase method, e.g. `POST`.
    public var method: String
    /// The path without its query, percent-decoded by libmicrohttpd, e.g. `/api/v1/events`.
    public var path: String
    /// Query arguments, percent-decoded; a repeated name keeps its last value.
    public var query: [String: String]
    /// Request headers by lowercased name; a repeated header keeps its values joined by `, `.
    public var headers: [String: String]
    /// Values of the route pattern's `:name` segments.
    public var pathParameters: [String: String]
    /// The body after content decoding.
    public var body: HTTPBody
    /// What the route's ``HTTPRoute/Authorizer`` returned when it admitted the request (the
    /// ingest key's project, for instance); nil on routes without one.
    public var authorization: (any Sendable)?

    /// Creates a request; the server builds these, tests may too.
    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                pathParameters: [String: String] = [:], body: HTTPBody = .memory(Data()), authorization: (any Sendable)? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        self.pathParameters = pathParameters
        self.body = body
        self.authorization = authorization
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body's bytes when it was kept in memory; empty for a body spooled to a file.
    public var bodyData: Data {
        if case .memory(let data) = body { return data }
        return Data()
    }

    /// The media type of `Content-Type` without parameters, lowercased (`application/json`).
    public var mediaType: String? {
        guard let value = header("content-type") else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// A bearer token from `Authorization: Bearer …`, if present.
    public var bearerToken: String? {
        guard let value = header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The value of cookie `name` from the `Cookie` header.
    public func cookie(_ name: String) -> String? {
        guard let value = header("cookie") else { return nil }
        for pair in value.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// Where a request body ended up: in memory, or spooled to a temporary file for routes that
/// accept bodies too large to hold (symbol uploads).
public enum HTTPBody: Sendable {
    /// The whole body.
    case memory(Data)
    /// A temporary file holding the body; the server deletes it after the handler returns.
    case file(URL, size: Int64)
}
