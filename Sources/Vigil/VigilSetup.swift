import Foundation
import VigilCore
import VigilRuntime
import VigilTransport

/// Everything `Vigil.start(_:)` needs: who the app is, where events go, and how the detectors
/// are tuned.
///
/// Only ``app`` is required; every other field has a default that works on the device.
public struct VigilSetup: Sendable {
    /// The app that produces the events.
    public var app: AppInfo
    /// The device, detected by default (`DeviceInfo.current`).
    public var device: DeviceInfo
    /// Detector settings and per-module kill switches.
    public var monitoring: VigilConfiguration
    /// Where finished events go; nil means the SDK's durable store at `dataDirectory/events`
    /// (behind the remote configuration's gate, uploaded to ``serverURL`` when set).
    public var sink: (any EventSink)?
    /// The Vigil server to upload events to and take the remote configuration from, e.g.
    /// `https://vigil.example.com`; nil keeps events on the device. Used only without a ``sink``.
    public var serverURL: URL?
    /// The project's ingest key for ``serverURL``.
    public var ingestKey: String
    /// Directory for the SDK's files (the hang-in-progress marker, the event store, the cached
    /// remote configuration).
    /// Default: `<caches>/vigil`.
    public var dataDirectory: URL
    /// Tags put on every event.
    public var tags: [String: String]
    /// The page visible at start, if known.
    public var initialPage: String?
    /// What the runtime knows about how this launch came about.
    public var launchFacts: LaunchFacts
    /// The display link. Apple platforms create a `CADisplayLink` when nil; Linux has no
    /// display, so frames are monitored only when the app passes the clock its render loop runs
    /// from (a ``RunLoopFrameClock``).
    public var frameSource: (any FrameTimingSource)?
    /// How long a main-thread stack sample may wait for the main thread to answer, in ms.
    public var sampleTimeoutMs: Double
    /// A launch is reported when the app marks it fully drawn, or this long after the first
    /// frame if it never does, in ms. Default 30 s.
    public var fullyDrawnTimeoutMs: Double
    /// One `resource` event per this interval (the latest reading), plus every reading that
    /// carries a CPU block, in ms. Default 60 s.
    public var resourceReportIntervalMs: Double
    /// The time source; tests may inject another.
    public var clock: any VigilClock
    /// Crash capture settings (the kill switch is the `crash` module of ``monitoring``).
    public var crash = CrashCaptureOptions()
    /// An OpenTelemetry receiver (a collector, a hosted backend) that every event is also sent
    /// to as OTLP/HTTP JSON, besides ``sink`` or the durable store. Default nil: none.
    public var openTelemetry: OTLPExporterConfiguration? = nil
    /// Overrides the wait between `Vigil.start(_:)` and the first upload, in seconds (the
    /// remote configuration's `upload.initialDelaySeconds`, 5 s by default, which keeps
    /// uploading out of the launch). Nil keeps the configured delay. For short-lived tools and
    /// demos; an app should leave it alone.
    public var uploadDelaySeconds: Double? = nil
    /// Also receives every event the SDK stores (after the remote configuration's gate), when
    /// ``sink`` is nil: a copy for tools and tests (`vigil-sample --out`). Called on the SDK's
    /// background queues; it must return quickly and never block on the main thread.
    public var eventObserver: (any EventSink)? = nil
    /// Whether MetricKit's diagnostic payloads become events on Apple platforms (iOS 14+,
    /// macOS 12+): crashes no in-process handler sees (watchdog, jetsam, guard and resource
    /// violations), CPU and disk-write exceptions, launch diagnostics (``MetricKitEventConverter``).
    /// Default true; ignored where MetricKit does not exist (Linux, tvOS, watchOS).
    public var metricKitDiagnostics = true
    /// The app's own id for its user (an account id, say), put on every event as `user`. By
    /// default it leaves the device only as its SHA-256 (64 hex digits), enough to count
    /// distinct users; set ``sendsRawUserID`` to send it as given. Default nil: no user id
    /// (distinct users are then counted by install id).
    public var userID: String? = nil
    /// Sends ``userID`` as given instead of hashed. Default false.
    public var sendsRawUserID = false
    /// How often the running session's marker (its duration, foreground time and app state) is
    /// rewritten, in seconds; a session that vanishes loses at most this much of its time.
    /// Default 5 s; clamped to 0.2 … 300 s.
    public var sessionMarkerIntervalSeconds: Double = 5

    /// A setup for `app` with every default.
    public init(app: AppInfo, device: DeviceInfo = .current, monitoring: VigilConfiguration = VigilConfiguration(),
                sink: (any EventSink)? = nil, serverURL: URL? = nil, ingestKey: String = "",
                dataDirectory: URL? = nil, tags: [String: String] = [:],
                initialPage: String? = nil, launchFacts: LaunchFacts = LaunchFacts(),
                frameSource: (any FrameTimingSource)? = nil, sampleTimeoutMs: Double = 20,
                fullyDrawnTimeoutMs: Double = 30_000, resourceReportIntervalMs: Double = 60_000,
                clock: any VigilClock = SystemClock()) {
        self.app = app
        self.device = device
        self.monitoring = monitoring
        self.sink = sink
        self.serverURL = serverURL
        self.ingestKey = ingestKey
        self.dataDirectory = dataDirectory ?? Self.defaultDataDirectory
        self.tags = tags
        self.initialPage = initialPage
        self.launchFacts = launchFacts
        self.frameSource = frameSource
        self.sampleTimeoutMs = sampleTimeoutMs
        self.fullyDrawnTimeoutMs = fullyDrawnTimeoutMs
        self.resourceReportIntervalMs = resourceReportIntervalMs
        self.clock = clock
    }

    /// `<caches>/vigil`, or `<tmp>/vigil` when there is no caches directory.
    public static var defaultDataDirectory: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        return caches.appendingPathComponent("vigil", isDirectory: true)
    }
}
