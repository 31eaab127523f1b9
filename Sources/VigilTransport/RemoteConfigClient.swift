import Foundation
import VigilCore

/// Fetches the project's remote configuration (`GET /api/v1/config` with `If-None-Match`)
/// and keeps the last good document on disk for the next start.
///
/// At start, ``loadAtStart()`` returns the cached document when it is readable and the
/// compiled defaults otherwise; ``refresh(completion:)`` asks the server. An unreachable
/// server or an unreadable answer (wrong types, not JSON, too large) leaves the
/// configuration in force unchanged and is counted; out-of-range values are clamped.
///
/// Threading: methods may be called from any thread; the cache file is written from the
/// HTTP client's completion thread under a lock.
public final class RemoteConfigClient: @unchecked Sendable {
    /// Where the configuration was read from.
    public enum Source: String, Sendable, Hashable {
        /// No readable cache: the compiled defaults.
        case defaults
        /// The document cached by an earlier run.
        case cache
    }

    /// The configuration for this start, where it came from and what was wrong with it.
    public struct Loaded: Sendable {
        /// The configuration to run with.
        public var configuration: RemoteConfig
        /// Where it came from.
        public var source: Source
        /// Problems found (clamped values, or the error that sent it back to defaults).
        public var issues: [RemoteConfigError]
    }

    /// The outcome of one refresh.
    public enum Refresh: Sendable {
        /// A new document, cached for the next start (values already clamped).
        case updated(RemoteConfig, issues: [RemoteConfigError])
        /// `304`: the cached document is current.
        case notModified
        /// The server answered with a document that cannot be read; nothing changed.
        case invalid(RemoteConfigError)
        /// No usable answer (network error, non-2xx status); nothing changed.
        case failed(String)
    }

    /// Counters of the refreshes.
    public struct Statistics: Sendable, Hashable {
        /// Requests sent.
        public var fetches = 0
        /// New documents received and cached.
        public var updated = 0
        /// `304` answers.
        public var notModified = 0
        /// Documents refused as unreadable.
        public var invalid = 0
        /// Refreshes without a usable answer (network errors, other statuses).
        public var failed = 0
        /// Cached documents that could not be read at start.
        public var unreadableCache = 0
    }

    private let configURL: URL
    private let ingestKey: String
    private let http: any HTTPClient
    private let cacheFile: URL
    private let timeoutSeconds: Double
    private let lock = NSLock()
    private var etag: String?
    private var counters = Statistics()

    /// A client for the server at `baseURL`, caching in `cacheDirectory`
    /// (`remote-config.cache`).
    public init(baseURL: URL, ingestKey: String, http: any HTTPClient, cacheDirectory: URL, timeoutSeconds: Double = 30) {
        configURL = baseURL.appendingPathComponent("api/v1/config")
        self.ingestKey = ingestKey
        self.http = http
        cacheFile = cacheDirectory.appendingPathComponent("remote-config.cache")
        self.timeoutSeconds = timeoutSeconds
    }

    /// Reads the cache: the configuration to apply at this start. Cost: one read of at most
    /// 64 KiB and one JSON parse.
    public func loadAtStart() -> Loaded {
        guard let data = try? Data(contentsOf: cacheFile), !data.isEmpty else {
            return Loaded(configuration: RemoteConfig(), source: .defaults, issues: [])
        }
        // Cache format: the ETag on the first line, the document after it.
        let newline = data.firstIndex(of: 0x0A) ?? data.endIndex
        let tag = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
        let document = newline < data.endIndex ? data[data.index(after: newline)...] : Data()
        let (configuration, issues) = RemoteConfig.decodeForSDK(Data(document))
        if issues.contains(where: { $0.kind != .outOfRange }) {
            lock.lock()
            counters.unreadableCache += 1
            lock.unlock()
            return Loaded(configuration: RemoteConfig(), source: .defaults, issues: issues)
        }
        lock.lock()
        etag = tag.isEmpty ? nil : tag
        lock.unlock()
        return Loaded(configuration: configuration, source: .cache, issues: issues)
    }

    /// Asks the server for the current document; `completion` runs once, on any thread.
    public func refresh(completion: @escaping @Sendable (Refresh) -> Void) {
        lock.lock()
        counters.fetches += 1
        let knownTag = etag
        lock.unlock()
        var headers = ["Authorization": "Bearer \(ingestKey)", "Accept": "application/json"]
        if let knownTag { headers["If-None-Match"] = knownTag }
        let request = HTTPRequest(method: "GET", url: configURL, headers: headers, timeoutSeconds: timeoutSeconds)
        http.send(request) { result in
            completion(self.absorb(result))
        }
    }

    /// Counters so far.
    public func statistics() -> Statistics {
        lock.lock()
        defer { lock.unlock() }
        return counters
    }

    private func absorb(_ result: Result<HTTPResponse, HTTPClientError>) -> Refresh {
        let outcome: Refresh
        switch result {
        case .failure(let error):
            outcome = .failed(String(describing: error))
        case .success(let response) where response.status == 304:
            outcome = .notModified
        case .success(let response) where response.status == 200:
            do {
                let document = try RemoteConfig.parse(response.body)
                let tag = sanitizedTag(response.header("ETag"))
                store(document: response.body, tag: tag)
                outcome = .updated(document.clamped(), issues: document.validationIssues())
            } catch {
                outcome = .invalid(error)
            }
        case .success(let response):
            outcome = .failed("HTTP \(response.status)")
        }
        lock.lock()
        switch outcome {
        case .updated: counters.updated += 1
        case .notModified: counters.notModified += 1
        case .invalid: counters.invalid += 1
        case .failed: counters.failed += 1
        }
        lock.unlock()
        return outcome
    }

    /// An ETag fit for one line of the cache and a request header.
    private func sanitizedTag(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.count <= 256,
              value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else { return nil }
        return value
    }

    private func store(document: Data, tag: String?) {
        var data = Data((tag ?? "").utf8)
        data.append(0x0A)
        data.append(document)
        lock.lock()
        defer { lock.unlock() }
        // Document and tag in one atomic write: a torn pair could pin an old document to a
        // new tag and make every later answer a 304.
        try? FileManager.default.createDirectory(at: cacheFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        if (try? data.write(to: cacheFile, options: .atomic)) != nil {
            etag = tag
        }
    }
}
