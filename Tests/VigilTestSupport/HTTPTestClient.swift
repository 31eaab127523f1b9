import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A blocking HTTP client for tests of servers that the test started (URLSession underneath,
/// with no cookie store, no cache and no redirect following, so tests see exactly what the
/// server answered).
public final class HTTPTestClient: @unchecked Sendable {
    /// One answer.
    public struct Response: Sendable, CustomStringConvertible {
        /// Status code.
        public var status: Int
        /// Headers by lowercased name.
        public var headers: [String: String]
        /// The body.
        public var body: Data
        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body parsed as a JSON object (empty when it is not one).
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }
        public var description: String { "\(status) \(text.prefix(500))" }
    }

    private let session: URLSession
    private let delegate = NoRedirects()
    /// `http://127.0.0.1:<port>`.
    public let base: URL

    /// A client for the server on `127.0.0.1:port`.
    public init(port: UInt16, host: String = "127.0.0.1") {
        base = URL(string: "http://\(host):\(port)")!
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 60
        configuration.httpMaximumConnectionsPerHost = 16
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    /// Sends a request and waits for the answer. `stream` sends `body` as a chunked stream
    /// without a Content-Length.
    public func send(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil,
                     stream: Bool = false) throws -> Response {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            if stream { request.httpBodyStream = InputStream(data: body) } else { request.httpBody = body }
        }
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            if let error {
                box.result = .failure(error)
            } else if let http = response as? HTTPURLResponse {
                var fields: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    fields[String(describing: key).lowercased()] = String(describing: value)
                }
                box.result = .success(Response(status: http.statusCode, headers: fields, body: data ?? Data()))
            } else {
                box.result = .failure(TestSupportError("no HTTP response for \(method) \(path)"))
            }
            done.signal()
        }
        task.resume()
        done.wait()
        return try box.result!.get()
    }

    /// `GET path`.
    public func get(_ path: String, headers: [String: String] = [:]) throws -> Response {
        try send("GET", path, headers: headers)
    }

    /// `POST path` with `body`.
    public func post(_ path: String, _ body: Data, headers: [String: String] = [:]) throws -> Response {
        try send("POST", path, headers: headers, body: body)
    }

    private final class ResultBox: @unchecked Sendable {
        var result: Result<Response, any Error>?
    }

    private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }
}
