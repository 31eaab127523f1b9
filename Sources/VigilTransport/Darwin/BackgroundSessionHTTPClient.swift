#if canImport(Darwin)
import Foundation

/// ``HTTPClient`` over a background `URLSession`
/// (`URLSessionConfiguration.background(withIdentifier:)`): uploads continue while the app is
/// suspended. Background sessions upload only from files, so each body is staged in a
/// temporary file that is removed when the task ends. Requests without a body are refused
/// (use ``URLSessionHTTPClient`` for `GET /api/v1/config`).
public final class BackgroundSessionHTTPClient: NSObject, HTTPClient, URLSessionDataDelegate, @unchecked Sendable {
    private struct Pending {
        var data = Data()
        var file: URL
        var completion: @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    }

    private var session: URLSession?
    private let staging: URL
    private let lock = NSLock()
    private var pending: [Int: Pending] = [:]

    /// A client on the background session `identifier` (one per app), staging bodies in
    /// `stagingDirectory`.
    public init(identifier: String,
                stagingDirectory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-uploads")) {
        staging = stagingDirectory
        super.init()
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        configuration.isDiscretionary = false
        configuration.sessionSendsLaunchEvents = false
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    public func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void) {
        guard let session, let body = request.body else {
            completion(.failure(.transport("a background session carries uploads only")))
            return
        }
        let file = staging.appendingPathComponent(UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            try body.write(to: file)
        } catch {
            completion(.failure(.transport("cannot stage the body: \(error.localizedDescription)")))
            return
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeoutSeconds
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = session.uploadTask(with: urlRequest, fromFile: file)
        lock.lock()
        pending[task.taskIdentifier] = Pending(file: file, completion: completion)
        lock.unlock()
        task.resume()
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        if var entry = pending[dataTask.taskIdentifier], entry.data.count + data.count <= IngestResponse.maximumBodyBytes {
            entry.data.append(data)
            pending[dataTask.taskIdentifier] = entry
        }
        lock.unlock()
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let entry = pending.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        // A task left over from an earlier process has no entry: its events are still in the
        // store and will be sent again (the server deduplicates by id).
        guard let entry else { return }
        try? FileManager.default.removeItem(at: entry.file)
        if let error {
            let timedOut = (error as NSError).code == NSURLErrorTimedOut
            entry.completion(.failure(timedOut ? .timedOut : .transport(error.localizedDescription)))
            return
        }
        guard let response = task.response as? HTTPURLResponse else {
            entry.completion(.failure(.transport("not an HTTP response")))
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        entry.completion(.success(HTTPResponse(status: response.statusCode, headers: headers, body: entry.data)))
    }
}
#endif
