import Foundation
import VigilCore
import VigilStore
import VigilTransport

/// Where the SDK's events go when the app passes no sink of its own: through the remote
/// configuration's gate (kill switch, module switches, sampling) into the durable store under
/// `dataDirectory/events`, and, when a server is configured, to the uploader; the remote
/// configuration is refreshed after the launch delay and then every `refreshSeconds`.
///
/// The configuration cached by the previous run is read before monitoring starts, so its
/// hang threshold and module switches apply at this start; a refreshed document applies live
/// where that is safe (``RemoteConfig/applyingLive(_:)``) and fully at the next start.
final class EventDelivery: @unchecked Sendable {
    /// The running pipeline, for `Vigil.stop()` and the statistics.
    private static let slot = Slot()

    let store: EventStore
    let gate: EventGate
    let uploader: EventUploader?
    let startConfiguration: RemoteConfig
    private let configClient: RemoteConfigClient?
    private let queue = DispatchQueue(label: "vigil.delivery", qos: .utility)
    // Guarded by `lock`.
    private let lock = NSLock()
    private var live: RemoteConfig
    private var stopped = false

    /// The pipeline's entry point.
    var sink: any EventSink { gate }

    init(setup: VigilSetup) {
        let directory = setup.dataDirectory
        var client: RemoteConfigClient?
        var configuration = RemoteConfig()
        let http = URLSessionHTTPClient()
        if let server = setup.serverURL {
            let made = RemoteConfigClient(baseURL: server, ingestKey: setup.ingestKey, http: http, cacheDirectory: directory)
            configuration = made.loadAtStart().configuration
            client = made
        }
        if let delay = setup.uploadDelaySeconds, delay.isFinite {
            configuration.upload.initialDelaySeconds = min(max(0, delay), 600)
        }
        startConfiguration = configuration
        live = configuration
        let store = EventStore(directory: directory.appendingPathComponent("events", isDirectory: true), clock: setup.clock)
        self.store = store
        // The observer sits behind the gate, beside the store: it sees what is stored, and crash
        // recovery still makes the store durable through `flush` (a group would claim it).
        gate = EventGate(downstream: setup.eventObserver.map { EventSinkGroup([store, $0]) } ?? store,
                         configuration: configuration)
        configClient = client
        if let server = setup.serverURL {
            let uploader = EventUploader(store: store, endpoint: EventUploader.Endpoint(baseURL: server, ingestKey: setup.ingestKey),
                                         http: http, policy: configuration.upload, clock: setup.clock,
                                         network: Self.networkProvider(), activity: Self.activityProvider())
            uploader.apply(configuration)
            self.uploader = uploader
        } else {
            uploader = nil
        }
    }

    /// Starts uploading and refreshing, and makes this the running pipeline.
    func start() {
        Self.slot.set(self)
        uploader?.start()
        if configClient != nil { scheduleRefresh(after: startConfiguration.upload.initialDelaySeconds) }
    }

    /// Stops refreshing and uploading, writes and syncs what is pending and closes the store.
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
        uploader?.stop()
        store.flush()
        store.close()
    }

    /// Uploads what the store holds now and waits (polling the store) until nothing is left or
    /// `timeoutSeconds` passed; nil without an uploader or a running pipeline.
    static func drainCurrent(timeoutSeconds: Double) -> VigilUploadDrain? {
        guard let delivery = slot.current, let uploader = delivery.uploader else { return nil }
        let started = DispatchTime.now().uptimeNanoseconds
        let budget = UInt64(max(0, timeoutSeconds.isFinite ? timeoutSeconds : 0) * 1e9)
        func elapsed() -> UInt64 { DispatchTime.now().uptimeNanoseconds - started }
        // Whatever monitoring handed over last reaches the files before the uploader looks.
        delivery.store.flush(timeoutSeconds: min(10, Double(budget) / 1e9))
        uploader.flush()
        var left = delivery.store.statistics().storedRecords
        while left > 0, elapsed() < budget {
            Thread.sleep(forTimeInterval: 0.02)
            left = delivery.store.statistics().storedRecords
        }
        let statistics = VigilDeliveryStatistics(store: delivery.store.statistics(), uploader: uploader.statistics(),
                                                 gate: delivery.gate.statistics())
        return VigilUploadDrain(eventsLeft: left, waitedSeconds: Double(elapsed()) / 1e9, statistics: statistics)
    }

    /// Stops and forgets the running pipeline, if any.
    static func stopCurrent() {
        slot.take()?.stop()
    }

    /// What the running pipeline stored, uploaded and dropped; nil when none runs.
    static func currentStatistics() -> VigilDeliveryStatistics? {
        guard let delivery = slot.current else { return nil }
        return VigilDeliveryStatistics(store: delivery.store.statistics(), uploader: delivery.uploader?.statistics(),
                                       gate: delivery.gate.statistics())
    }

    private func scheduleRefresh(after seconds: Double) {
        queue.asyncAfter(deadline: .now() + max(1, seconds)) { [weak self] in self?.refresh() }
    }

    private func refresh() {
        lock.lock()
        let done = stopped
        lock.unlock()
        guard !done, let configClient else { return }
        configClient.refresh { [weak self] outcome in
            guard let self else { return }
            if case .updated(let fetched, _) = outcome {
                self.lock.lock()
                self.live = self.startConfiguration.applyingLive(fetched)
                let live = self.live
                self.lock.unlock()
                self.gate.update(live)
                self.uploader?.apply(live)
            }
            self.lock.lock()
            let interval = self.live.refreshSeconds
            self.lock.unlock()
            self.scheduleRefresh(after: interval)
        }
    }

    private static func networkProvider() -> any NetworkPathProvider {
        #if canImport(Network)
        return PathMonitorNetworkProvider()
        #else
        return UnmeteredNetworkProvider()
        #endif
    }

    private static func activityProvider() -> any AppActivityProvider {
        #if canImport(Darwin)
        return ApplicationActivityObserver()
        #else
        return ForegroundActivityProvider()
        #endif
    }

    private final class Slot: @unchecked Sendable {
        private let lock = NSLock()
        private var delivery: EventDelivery?

        var current: EventDelivery? {
            lock.lock(); defer { lock.unlock() }
            return delivery
        }

        func set(_ value: EventDelivery) {
            lock.lock(); defer { lock.unlock() }
            delivery = value
        }

        func take() -> EventDelivery? {
            lock.lock(); defer { lock.unlock() }
            let taken = delivery
            delivery = nil
            return taken
        }
    }
}

/// What the SDK's delivery pipeline stored, uploaded and dropped since `Vigil.start(_:)`.
public struct VigilDeliveryStatistics: Sendable {
    /// The durable store: contents, writes, drops by cause, recovery findings.
    public var store: StoreStatistics
    /// The uploader; nil when no server is configured.
    public var uploader: UploaderStatistics?
    /// Events the remote configuration stopped (kill switch, module off, sampled out).
    public var gate: EventGate.Statistics
}

/// What `Vigil.stop(uploadingFor:)` achieved: how many stored events the server did not
/// acknowledge in time (they stay on disk for the next start) and what the pipeline did.
public struct VigilUploadDrain: Sendable {
    /// Events still in the store when the wait ended (0: everything was acknowledged).
    public var eventsLeft: Int
    /// How long the wait took, in seconds.
    public var waitedSeconds: Double
    /// The store's, the uploader's and the gate's counters at the end of the wait (the
    /// uploader's `eventsAccepted`, `eventsRejected`, `retries`… cover the whole run).
    public var statistics: VigilDeliveryStatistics

    /// Whether the server acknowledged every stored event.
    public var isComplete: Bool { eventsLeft == 0 }
}

extension Vigil {
    /// What the delivery pipeline (store, uploader, remote-config gate) did so far; nil when
    /// the SDK is not running or the app passed its own sink.
    public static func deliveryStatistics() -> VigilDeliveryStatistics? {
        EventDelivery.currentStatistics()
    }
}
