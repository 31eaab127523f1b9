import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPClient`` over `URLSession` (FoundationNetworking, i.e. libcurl, on Linux).
public final class URLSessionHTTPClient: HTTPClient, @unchecked Sendable {
    private let session: URLSession

    /// A client with its own session; ephemeral by default (no cookies, no cache on disk).
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void) {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeoutSeconds
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let task = session.dataTask(with: urlRequest) { data, response, error in
            if let error {
                let code = (error as NSError).code
                completion(.failure(code == NSURLErrorTimedOut ? .timedOut : .transport(error.localizedDescription)))
                return
            }
            guard let http = response as? HTTPURLResponse else {
                completion(.failure(.transport("not an HTTP response")))
                return
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name] = value }
            }
            completion(.success(HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data())))
        }
        task.resume()
    }

    deinit { session.finishTasksAndInvalidate() }
}
