import Foundation
import VigilCore
import VigilStore

/// Sends the store's events to `POST /api/v1/events` and deletes exactly what the server
/// acknowledged.
///
/// Policy (``UploadPolicy``): waits ``UploadPolicy/initialDelaySeconds`` after ``start()``;
/// sends batches of at most ``UploadPolicy/maxBatchEvents`` events or
/// ``UploadPolicy/maxBatchBytes`` uncompressed bytes as gzip JSON lines with the ingest key;
/// after a failure waits per ``BackoffSchedule`` (or the server's `Retry-After` on 429/503);
/// parks a batch after ``UploadPolicy/maxTries`` tries for ``UploadPolicy/parkSeconds``;
/// holds bodies above ``UploadPolicy/meteredPayloadLimitBytes`` while the network is metered;
/// stops while the app is in the background unless background uploads are available; stops
/// entirely while the remote kill switch is off. Every answer of the table in `docs/api.md`
/// is handled; unreadable answers (HTML, empty) count as failed tries, so nothing gets stuck.
///
/// Threading: all state lives on the ``UploadScheduler``'s serial context; the public
/// methods may be called from any thread. Time: delays go through the scheduler, wall time
/// (for HTTP-date `Retry-After`) through the injected clock, jitter through a seeded
/// generator.
public final class EventUploader: @unchecked Sendable {
    /// Where uploads go and with which key.
    public struct Endpoint: Sendable, Hashable {
        /// The server's base URL, e.g. `https://vigil.example.com`.
        public var baseURL: URL
        /// The project's ingest key.
        public var ingestKey: String

        /// An endpoint at `baseURL` with the project's ingest key.
        public init(baseURL: URL, ingestKey: String) {
            self.baseURL = baseURL
            self.ingestKey = ingestKey
        }

        /// `POST` target for events.
        public var eventsURL: URL { baseURL.appendingPathComponent("api/v1/events") }
    }

    private enum State: Equatable {
        case stopped
        /// Waiting out the launch delay, a backoff or a `Retry-After`: not cut short.
        case waiting
        /// Nothing to send, or only events held for an unmetered network: woken by new
        /// reasons to look (``uploadNow()``, a network change).
        case idle
        case inFlight
        case paused(PauseReason)
    }

    private enum PauseReason: Equatable { case background, disabled }

    private let store: EventStore
    private let endpoint: Endpoint
    private let http: any HTTPClient
    private let scheduler: any UploadScheduler
    private let network: any NetworkPathProvider
    private let activity: any AppActivityProvider
    private let clock: any VigilClock

    // Confined to the scheduler's context.
    private var policy: UploadPolicy
    private var generator: SeededGenerator
    private var state: State = .stopped
    private var timer: UInt64 = 0
    private var consecutiveFailures = 0
    private var current: UploadBatch?
    private var splitLimit: Int?
    private var enabled = true
    /// Whether the `.waiting` state is the launch delay (which ``flush()`` may cut short)
    /// rather than a backoff or a server's `Retry-After` (which it may not).
    private var inLaunchDelay = false
    private var onIdle: (@Sendable () -> Void)?

    private let statisticsLock = NSLock()
    private var counters = UploaderStatistics()

    /// An uploader for `store`. `seed` fixes the jitter sequence (tests, `--seed`); by default
    /// it comes from the system's random source.
    public init(store: EventStore, endpoint: Endpoint, http: any HTTPClient, policy: UploadPolicy = UploadPolicy(),
                scheduler: any UploadScheduler = DispatchUploadScheduler(), clock: any VigilClock = SystemClock(),
                network: any NetworkPathProvider = UnmeteredNetworkProvider(),
                activity: any AppActivityProvider = ForegroundActivityProvider(), seed: UInt64? = nil) {
        self.store = store
        self.endpoint = endpoint
        self.http = http
        self.policy = policy
        self.scheduler = scheduler
        self.clock = clock
        self.network = network
        self.activity = activity
        var system = SystemRandomNumberGenerator()
        generator = SeededGenerator(seed: seed ?? system.next())
    }

    // MARK: Control

    /// Starts uploading after the launch delay. Calling it again has no effect.
    public func start() {
        network.onChange { [weak self] _ in self?.wake() }
        activity.onChange { [weak self] _ in self?.wake() }
        scheduler.schedule(after: 0) {
            guard self.state == .stopped else { return }
            self.state = .waiting
            self.inLaunchDelay = true
            self.arm(after: self.policy.initialDelaySeconds)
        }
    }

    /// Stops after the request in flight (whose answer is still applied to the store).
    public func stop() {
        scheduler.schedule(after: 0) {
            self.state = .stopped
            self.timer &+= 1
        }
    }

    /// Looks for events now if the uploader is idle (it does not cut short a launch delay,
    /// a backoff or a `Retry-After`).
    public func uploadNow() { wake() }

    /// Looks for events now like ``uploadNow()``, and also cuts short the launch delay (not a
    /// backoff or a `Retry-After`: those say the server cannot take more yet). For a process
    /// about to end that wants its events sent first (`Vigil.stop(uploadingFor:)`).
    public func flush() {
        scheduler.schedule(after: 0) {
            if self.state == .waiting, self.inLaunchDelay {
                self.arm(after: 0)
            }
        }
        wake()
    }

    /// Applies a new remote configuration live: the kill switch and the upload policy.
    public func apply(_ configuration: RemoteConfig) {
        scheduler.schedule(after: 0) {
            self.policy = configuration.upload
            self.enabled = configuration.enabled
            if !self.enabled, self.state != .inFlight, self.state != .stopped {
                self.state = .paused(.disabled)
                self.timer &+= 1
            } else if self.enabled, self.state == .paused(.disabled) {
                self.state = .idle
                self.arm(after: 0)
            }
        }
    }

    /// Calls `handler` (on the scheduler's context) each time the uploader finds nothing to
    /// send; for tests and for `Vigil.flush`.
    public func whenIdle(_ handler: @escaping @Sendable () -> Void) {
        scheduler.schedule(after: 0) { self.onIdle = handler }
    }

    /// A snapshot of the counters.
    public func statistics() -> UploaderStatistics {
        statisticsLock.lock()
        defer { statisticsLock.unlock() }
        return counters
    }

    private func count(_ change: (inout UploaderStatistics) -> Void) {
        statisticsLock.lock()
        change(&counters)
        statisticsLock.unlock()
    }

    private func wake() {
        scheduler.schedule(after: 0) {
            switch self.state {
            case .idle, .paused(.background):
                self.state = .idle
                self.arm(after: 0)
            case .stopped, .waiting, .inFlight, .paused(.disabled):
                break
            }
        }
    }

    /// Schedules the next attempt, cancelling any earlier timer.
    private func arm(after seconds: Double) {
        timer &+= 1
        let armed = timer
        scheduler.schedule(after: seconds) {
            guard armed == self.timer else { return }
            self.attempt()
        }
    }

    // MARK: Uploading

    private func attempt() {
        inLaunchDelay = false
        switch state {
        case .stopped, .inFlight, .paused(.disabled): return
        case .waiting, .idle, .paused(.background): break
        }
        guard enabled else {
            state = .paused(.disabled)
            return
        }
        if activity.isInBackground && !activity.backgroundUploadsAvailable {
            state = .paused(.background)
            count { $0.pausedInBackground += 1 }
            return
        }
        guard let batch = current ?? nextBatch() else { return }
        current = batch
        send(batch)
    }

    /// Leases and encodes the next batch; when there is none, goes idle.
    private func nextBatch() -> UploadBatch? {
        while true {
            let path = network.currentPath
            let meteredLimit = path.isMetered ? policy.meteredPayloadLimitBytes : nil
            var maxBytes = policy.maxBatchBytes
            if let meteredLimit { maxBytes = min(maxBytes, max(meteredLimit, 1)) }
            let maxEvents = min(policy.maxBatchEvents, splitLimit ?? Int.max)
            let leased = store.nextBatch(maxEvents: maxEvents, maxBytes: maxBytes, oversizedAbove: meteredLimit)
            if leased.isEmpty {
                if meteredLimit != nil, store.hasStoredEvents { count { $0.heldForMeteredNetwork += 1 } }
                goIdle()
                return nil
            }
            let (batch, unreadable) = UploadBatch.make(from: leased)
            if !unreadable.isEmpty {
                store.acknowledge(unreadable)
                count { $0.droppedUnreadable += unreadable.count }
            }
            if let batch { return batch }
        }
    }

    private func goIdle() {
        state = .idle
        arm(after: policy.idleIntervalSeconds)
        onIdle?()
    }

    private func send(_ batch: UploadBatch) {
        state = .inFlight
        batch.tries += 1
        var headers = [
            "Authorization": "Bearer \(endpoint.ingestKey)",
            "Content-Type": "application/x-ndjson",
        ]
        var body = batch.body
        if let compressed = try? Gzip.compress(batch.body) {
            body = compressed
            headers["Content-Encoding"] = "gzip"
        }
        count {
            $0.requests += 1
            $0.bodyBytes += batch.body.count
            $0.compressedBytes += body.count
        }
        let request = HTTPRequest(method: "POST", url: endpoint.eventsURL, headers: headers, body: body,
                                  timeoutSeconds: policy.requestTimeoutSeconds)
        http.send(request) { result in
            self.scheduler.schedule(after: 0) { self.handle(result, for: batch) }
        }
    }

    private func handle(_ result: Result<HTTPResponse, HTTPClientError>, for batch: UploadBatch) {
        guard current === batch else { return }
        let disposition = UploadDisposition.classify(result, now: clock.wallNow())
        if state == .inFlight { state = .waiting }
        switch disposition {
        case .acknowledged(let response):
            let resolution = batch.resolve(response)
            if resolution.delete.isEmpty {
                // A 200 that acknowledges nothing would make an immediate retry loop.
                retry(batch, cause: .nothingAcknowledged, serverDelay: nil, countsAsTry: true)
                return
            }
            // Counters first: whoever sees the store empty also sees them final.
            count {
                $0.acknowledgedRequests += 1
                $0.eventsAccepted += resolution.accepted
                $0.eventsRejected += resolution.rejectionReasons.count
                $0.eventsNotMentioned += resolution.keep.count
                $0.unknownAcknowledgements += resolution.unknown
                for reason in resolution.rejectionReasons {
                    let key = $0.rejectionReasons[reason] != nil || $0.rejectionReasons.count < 32 ? reason : "other"
                    $0.rejectionReasons[key, default: 0] += 1
                }
            }
            store.acknowledge(resolution.delete)
            store.release(resolution.keep)
            consecutiveFailures = 0
            finish(batch, nextAfter: 0)
        case .drop:
            count {
                $0.droppedBatches += 1
                $0.droppedEvents += batch.records.count
            }
            store.acknowledge(batch.records.map(\.handle))
            finish(batch, nextAfter: 0)
        case .split:
            if batch.records.count == 1 {
                count { $0.droppedTooLarge += 1 }
                store.acknowledge(batch.records.map(\.handle))
            } else {
                splitLimit = max(1, batch.records.count / 2)
                store.release(batch.records.map(\.handle))
                count { $0.splits += 1 }
            }
            finish(batch, nextAfter: 0)
        case .retry(let cause, let serverDelay, let countsAsTry):
            retry(batch, cause: cause, serverDelay: serverDelay, countsAsTry: countsAsTry)
        }
    }

    private func retry(_ batch: UploadBatch, cause: UploadDisposition.RetryCause, serverDelay: Double?, countsAsTry: Bool) {
        if !countsAsTry { batch.tries -= 1 }
        if countsAsTry { consecutiveFailures += 1 }
        let delay: Double
        if let serverDelay {
            // A floor of one second: a server answering `Retry-After: 0` must not make a
            // tight loop.
            delay = min(max(serverDelay, 1), policy.retryAfterCapSeconds)
        } else {
            delay = BackoffSchedule(policy).seconds(afterFailures: max(consecutiveFailures, 1), using: &generator)
        }
        if batch.tries >= policy.maxTries {
            park(batch)
        }
        count {
            $0.retries[cause, default: 0] += 1
            $0.recentDelays.append(delay)
            if $0.recentDelays.count > 64 { $0.recentDelays.removeFirst($0.recentDelays.count - 64) }
        }
        if state == .stopped { return }
        if !enabled {
            state = .paused(.disabled)
            return
        }
        state = .waiting
        arm(after: delay)
    }

    /// Sets a batch aside: its events stay on disk and leased (so not offered again) for
    /// ``UploadPolicy/parkSeconds``, or until the next start.
    private func park(_ batch: UploadBatch) {
        current = nil
        count { $0.parkedBatches += 1 }
        let handles = batch.records.map(\.handle)
        scheduler.schedule(after: policy.parkSeconds) {
            self.store.release(handles)
            if self.state == .idle { self.arm(after: 0) }
        }
    }

    private func finish(_ batch: UploadBatch, nextAfter seconds: Double) {
        current = nil
        switch state {
        case .stopped, .paused: return
        case .waiting, .idle, .inFlight:
            state = .waiting
            arm(after: seconds)
        }
    }
}
