import Foundation
import VigilCore

/// Sends Vigil's events to any OpenTelemetry receiver as OTLP/HTTP JSON: `span` and `network`
/// events to `/v1/traces`, every other event to `/v1/logs` (``OTLPDocumentBuilder``), gzip
/// compressed, in batches.
///
/// An ``EventSink``: `emit` only appends to a bounded queue (dropping and counting when full)
/// and returns; batching, encoding and sending happen on the exporter's own queue. A batch is
/// sent when ``OTLPExporterConfiguration/maxBatchEvents`` are waiting or after
/// ``OTLPExporterConfiguration/flushIntervalSeconds``. Failed attempts (transport errors, 429,
/// 5xx) are retried with backoff, honouring `Retry-After`; other 4xx answers drop the batch
/// (counted as rejected). One request is in flight at a time.
public final class OTLPExporter: EventSink, @unchecked Sendable {
    /// The configuration in force.
    public let configuration: OTLPExporterConfiguration
    private let http: any HTTPClient
    private let queue = DispatchQueue(label: "vigil.otlp", qos: .utility)
    private let lock = NSLock()
    // Guarded by `lock`.
    private var pending: [Event] = []
    private var statisticsStorage = OTLPExporterStatistics()
    private var stopped = false
    // Confined to `queue`.
    private var sending = false
    private var timer: DispatchSourceTimer?
    private var flushWaiters: [@Sendable () -> Void] = []
    private var generator: SeededGenerator

    /// An exporter sending with `http` (by default its own `URLSession`).
    public init(configuration: OTLPExporterConfiguration, http: any HTTPClient = URLSessionHTTPClient(),
                seed: UInt64? = nil) {
        self.configuration = configuration
        self.http = http
        generator = SeededGenerator(seed: seed ?? UInt64.random(in: 0...UInt64.max))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = configuration.flushIntervalSeconds
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.sendIfIdle(force: true) }
        timer.resume()
        self.timer = timer
    }

    deinit {
        timer?.cancel()
    }

    /// Queues `event` for export; drops and counts it when the queue is full or the exporter
    /// stopped. Cheap: one lock, one append.
    public func emit(_ event: Event) {
        lock.lock()
        guard !stopped, pending.count < configuration.maxQueuedEvents else {
            statisticsStorage.droppedQueueFull &+= 1
            lock.unlock()
            return
        }
        pending.append(event)
        let full = pending.count >= configuration.maxBatchEvents
        lock.unlock()
        if full { queue.async { self.sendIfIdle(force: false) } }
    }

    /// Counts so far.
    public var statistics: OTLPExporterStatistics {
        lock.lock(); defer { lock.unlock() }
        return statisticsStorage
    }

    /// Sends everything queued now and calls `completion` (on the exporter's queue) once the
    /// queue is empty and no request is in flight, or the retries gave up.
    public func flush(completion: @escaping @Sendable () -> Void) {
        queue.async {
            self.flushWaiters.append(completion)
            self.sendIfIdle(force: true)
        }
    }

    /// ``flush(completion:)``, waiting at most `timeoutSeconds`; returns whether it finished.
    @discardableResult
    public func flushAndWait(timeoutSeconds: Double) -> Bool {
        let done = DispatchSemaphore(value: 0)
        flush { done.signal() }
        return done.wait(timeout: .now() + max(0, timeoutSeconds)) == .success
    }

    /// Stops accepting events and the timer; what is queued stays until a ``flush(completion:)``.
    public func stop() {
        lock.lock(); stopped = true; lock.unlock()
        queue.async {
            self.timer?.cancel()
            self.timer = nil
        }
    }

    // MARK: - Sending (exporter queue)

    private func sendIfIdle(force: Bool) {
        guard !sending else { return }
        lock.lock()
        let ready = force ? !pending.isEmpty : pending.count >= configuration.maxBatchEvents
        guard ready else {
            let empty = pending.isEmpty
            lock.unlock()
            if empty { finishWaiters() }
            return
        }
        let batch = Array(pending.prefix(configuration.maxBatchEvents))
        pending.removeFirst(batch.count)
        lock.unlock()
        sending = true
        let builder = OTLPDocumentBuilder()
        var requests: [(URL, Data, Int)] = []
        if let traces = builder.traces(from: batch), let body = try? OTLPJSON.encode(traces) {
            requests.append((configuration.tracesURL, body, traces.spanCount))
        }
        if let logs = builder.logs(from: batch), let body = try? OTLPJSON.encode(logs) {
            requests.append((configuration.logsURL, body, logs.recordCount))
        }
        send(requests, attempt: 1)
    }

    /// Sends the documents of one batch one after another.
    private func send(_ documents: [(url: URL, body: Data, items: Int)], attempt: Int) {
        guard let document = documents.first else {
            sending = false
            sendIfIdle(force: !flushWaiters.isEmpty)
            return
        }
        var headers = configuration.headers
        headers["Content-Type"] = "application/json"
        var body = document.body
        if configuration.gzip, let compressed = try? Gzip.compress(body) {
            body = compressed
            headers["Content-Encoding"] = "gzip"
        }
        let request = HTTPRequest(method: "POST", url: document.url, headers: headers, body: body,
                                  timeoutSeconds: configuration.timeoutSeconds)
        lock.lock()
        statisticsStorage.requests &+= 1
        statisticsStorage.bytesSent &+= UInt64(body.count)
        lock.unlock()
        let isTraces = document.url == configuration.tracesURL
        http.send(request) { [self] result in
            queue.async { [self] in
                switch Self.outcome(of: result, items: document.items) {
                case .accepted(let rejected):
                    lock.lock()
                    let accepted = UInt64(max(0, document.items - rejected))
                    if isTraces { statisticsStorage.spansExported &+= accepted } else {
                        statisticsStorage.logRecordsExported &+= accepted
                    }
                    statisticsStorage.rejected &+= UInt64(rejected)
                    lock.unlock()
                    send(Array(documents.dropFirst()), attempt: 1)
                case .refused:
                    lock.lock(); statisticsStorage.rejected &+= UInt64(document.items); lock.unlock()
                    send(Array(documents.dropFirst()), attempt: 1)
                case .retry(let after):
                    lock.lock(); statisticsStorage.failedAttempts &+= 1; lock.unlock()
                    guard attempt < configuration.maxAttempts else {
                        lock.lock(); statisticsStorage.droppedAfterRetries &+= UInt64(document.items); lock.unlock()
                        send(Array(documents.dropFirst()), attempt: 1)
                        return
                    }
                    let delay = after ?? configuration.backoff.seconds(afterFailures: attempt, using: &generator)
                    queue.asyncAfter(deadline: .now() + min(delay, 3600)) { [self] in
                        send(documents, attempt: attempt + 1)
                    }
                }
            }
        }
    }

    private enum Outcome {
        /// 2xx; the count the receiver reported rejected.
        case accepted(rejected: Int)
        /// A 4xx other than 408 and 429: sending again would not help.
        case refused
        /// Try again, after the server's `Retry-After` when it gave one.
        case retry(after: Double?)
    }

    private static func outcome(of result: Result<HTTPResponse, HTTPClientError>, items: Int) -> Outcome {
        switch result {
        case .failure:
            return .retry(after: nil)
        case .success(let response):
            switch response.status {
            case 200..<300:
                let answer = try? JSONDecoder().decode(OTLPExportResponse.self, from: response.body)
                let partial = answer?.partialSuccess
                let rejected = partial?.rejectedSpans?.value ?? partial?.rejectedLogRecords?.value ?? 0
                return .accepted(rejected: Int(clamping: min(max(rejected, 0), Int64(items))))
            case 408, 429, 500..<600:
                return .retry(after: RetryAfter.seconds(response.header("retry-after"), now: Date()))
            default:
                return .refused
            }
        }
    }

    private func finishWaiters() {
        let waiters = flushWaiters
        flushWaiters = []
        for waiter in waiters { waiter() }
    }
}
