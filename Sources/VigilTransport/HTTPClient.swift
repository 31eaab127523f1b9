import Foundation

/// The one HTTP operation the transport needs, behind a protocol so that unit tests script
/// the server's answers and production uses ``URLSessionHTTPClient``.
public protocol HTTPClient: Sendable {
    /// Sends `request` and calls `completion` exactly once, on any thread.
    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void)
}

/// An HTTP request.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, ….
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Header fields by name.
    public var headers: [String: String]
    /// The request body, if any.
    public var body: Data?
    /// Give up after this many seconds without an answer.
    public var timeoutSeconds: Double

    /// A request; `timeoutSeconds` bounds the wait for the answer.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeoutSeconds: Double = 60) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutSeconds = timeoutSeconds
    }
}

/// An HTTP response.
public struct HTTPResponse: Sendable, Hashable {
    /// Status code.
    public var status: Int
    /// Header fields, names lowercased.
    public var headers: [String: String]
    /// The response body (possibly empty).
    public var body: Data

    /// Makes a response; header names are lowercased.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why no HTTP response arrived.
public enum HTTPClientError: Error, Sendable, Hashable {
    /// No answer within the request's timeout.
    case timedOut
    /// Connection refused or reset, DNS failure, TLS failure…; the text says which.
    case transport(String)
}
