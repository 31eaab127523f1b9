import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The demo's own calls to the server it started: the symbol upload and the query endpoints
/// its summary is made from, all with the admin token, over loopback HTTP like any client.
struct DemoHTTPClient: Sendable {
    /// `http://127.0.0.1:PORT/`.
    let base: URL
    /// The admin token.
    let token: String
    /// The project the queries are about.
    let project: String
    /// Query arguments added to every ``get(_:query:as:)`` (a time range), or empty.
    var scope = ""

    /// One answer.
    struct Answer {
        var status: Int
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// `GET path?project=…&query`, decoded as `T` from a 200 answer.
    func get<T: Decodable>(_ path: String, query: String = "", as type: T.Type) throws -> T {
        let answer = try send("GET", path, query: [query, scope].filter { !$0.isEmpty }.joined(separator: "&"))
        guard answer.status == 200 else { throw DemoError("GET \(path): HTTP \(answer.status) \(answer.text.prefix(300))") }
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw DemoError("GET \(path): unexpected answer (\(error)): \(answer.text.prefix(300))")
        }
    }

    /// Sends one request to `path` (relative to ``base``) with the admin token and the project.
    /// `contentType` labels the body; `bearer` replaces the admin token (an ingest key).
    func send(_ method: String, _ path: String, query: String = "", body: Data? = nil, contentType: String = "application/octet-stream",
              bearer: String? = nil, timeoutSeconds: Double = 60) throws -> Answer {
        guard var components = URLComponents(url: base.appendingPathComponent(path), resolvingAgainstBaseURL: false) else {
            throw DemoError("not a URL: \(path)")
        }
        let projectQuery = "project=" + (project.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? project)
        components.percentEncodedQuery = query.isEmpty ? projectQuery : projectQuery + "&" + query
        guard let url = components.url else { throw DemoError("not a URL: \(path)?\(query)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(bearer ?? token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        request.timeoutInterval = timeoutSeconds
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(error.map { .failure(DemoError("\(method) \(path): \($0.localizedDescription)")) }
                ?? .success(Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data ?? Data())))
            done.signal()
        }.resume()
        done.wait()
        return try box.get()
    }

    /// The answer handed from URLSession's queue to the waiting caller.
    private final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<Answer, DemoError>?

        func set(_ value: Result<Answer, DemoError>) {
            lock.lock(); defer { lock.unlock() }
            result = value
        }

        func get() throws -> Answer {
            lock.lock(); defer { lock.unlock() }
            guard let result else { throw DemoError("no answer") }
            return try result.get()
        }
    }
}

/// A demo step that failed.
struct DemoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
