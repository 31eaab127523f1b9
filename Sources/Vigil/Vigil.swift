import Foundation
import VigilCore
import VigilRuntime

/// The SDK's public face: start monitoring once, early in the app's life, then report the
/// moments only the app knows (launch marks, the visible page, modal dialogs).
///
/// ```swift
/// Vigil.start(VigilSetup(app: AppInfo(id: "com.example.shop", version: "3.2.0", build: "412")))
/// Vigil.setPage("CheckoutViewController")
/// Vigil.markFullyDrawn()
/// ```
///
/// Every call is safe from any thread and never throws or traps into the app; calls before
/// ``start(_:)`` (or after ``stop()``) do nothing. On the calling thread a call only reads the
/// clock and hands over to the SDK's background queue.
public enum Vigil {
    /// Starts monitoring: hangs (run-loop observer, watchdog, main-thread sampling), frames,
    /// launch and resources, as `setup.monitoring` enables them, writing events to `setup.sink`,
    /// or by default to the durable store in `setup.dataDirectory/events`, uploaded to
    /// `setup.serverURL` when one is given.
    ///
    /// Call on the main thread (the main-thread sampler is created there; from another thread
    /// it is created on the main queue's next turn). Returns false when the SDK is already
    /// running.
    @discardableResult
    public static func start(_ setup: VigilSetup) -> Bool {
        let instant = setup.clock.monotonicNow()
        return SessionSlot.shared.startIfIdle {
            var setup = setup
            let sink: any EventSink
            var delivery: EventDelivery?
            if let given = setup.sink {
                sink = given
            } else {
                // The durable store (and, with a server, the uploader); the remote
                // configuration cached by the last run decides modules and threshold now.
                let made = EventDelivery(setup: setup)
                setup.monitoring = made.startConfiguration.applied(to: setup.monitoring)
                sink = made.sink
                delivery = made
            }
            let session = MonitoringSession(setup: setup, sink: OpenTelemetryExport.attach(to: sink, setup: setup))
            delivery?.start()
            // Crash capture first: the handler is armed now, and the recovery of earlier runs'
            // reports is queued ahead of the session's leftover-marker report (a marker of a
            // session that crashed is folded into its crash event).
            var flush: (@Sendable () -> Bool)?
            if let store = delivery?.store { flush = { store.flush() } }
            CrashCapture.shared.start(setup: setup, sink: sink, session: session.session, queue: session.queue, flush: flush)
            #if canImport(MetricKit) && (os(iOS) || os(macOS))
            if setup.metricKitDiagnostics {
                MetricKitSubscriber.start(converter: MetricKitEventConverter(app: setup.app, device: setup.device,
                                                                             modules: setup.monitoring.enabledModules),
                                          sink: sink)
            }
            #endif
            session.start(at: instant)
            NetworkMonitoring.attach(session, setup: setup)
            return session
        }
    }

    /// Stops monitoring and flushes: a hang in progress is reported (cut now), frame statistics
    /// are closed, a measured launch is reported. Blocks the caller until that is done. For
    /// orderly shutdown, tools and tests; an app normally never calls it.
    public static func stop() {
        stopMonitoring()
        EventDelivery.stopCurrent()
        OpenTelemetryExport.detach()
    }

    /// Stops like ``stop()``, but first uploads what the durable store holds: monitoring stops
    /// (its last events are stored), the launch delay is cut short, and the caller waits until
    /// the server acknowledged every stored event or `timeoutSeconds` passed. Events not sent
    /// stay in the store for the next start; the result says how many.
    ///
    /// For command-line tools, tests and demos that end right after their work (an app never
    /// needs it: what is stored is sent at the next launch). Blocks the caller for at most about
    /// `timeoutSeconds` plus the ordinary stop; call it off the monitoring queue. Returns nil when
    /// events do not go to a server (no ``VigilSetup/serverURL``, or the app's own sink).
    @discardableResult
    public static func stop(uploadingFor timeoutSeconds: Double) -> VigilUploadDrain? {
        stopMonitoring()
        let drained = EventDelivery.drainCurrent(timeoutSeconds: timeoutSeconds)
        EventDelivery.stopCurrent()
        OpenTelemetryExport.detach()
        return drained
    }

    private static func stopMonitoring() {
        NetworkMonitoring.detach()
        SessionSlot.shared.take()?.stop()
        CrashCapture.shared.stop()
        #if canImport(MetricKit) && (os(iOS) || os(macOS))
        MetricKitSubscriber.stop()
        #endif
    }

    /// Whether the SDK is running.
    public static var isRunning: Bool { SessionSlot.shared.current != nil }

    /// The id of this run's session, as events carry it; nil when not running.
    public static var sessionID: UUID? { SessionSlot.shared.current?.session }

    // MARK: - Install and user

    /// The install id events carry (a random UUID kept in the data directory); nil when not
    /// running. Blocks briefly on the SDK's queue.
    public static var installID: UUID? { SessionSlot.shared.current?.installID }

    /// Replaces the install id with a new random one, e.g. when the user asks to be forgotten;
    /// later events (and sessions) carry the new id. Without a running SDK it resets the id in
    /// `dataDirectory` (default: ``VigilSetup/defaultDataDirectory``). Returns the new id, nil
    /// when the disk refused. One small file write; blocks the caller until done.
    @discardableResult
    public static func resetInstallID(dataDirectory: URL? = nil) -> UUID? {
        if let session = SessionSlot.shared.current, dataDirectory == nil { return session.resetInstall() }
        return InstallIdentity(dataDirectory: dataDirectory ?? VigilSetup.defaultDataDirectory).reset()
    }

    // MARK: - Launch marks

    /// The app finished launching (the end of `application(_:didFinishLaunchingWithOptions:)`).
    public static func markDidFinishLaunching() { mark(.didFinishLaunching) }

    /// The first frame was rendered (time to initial display). The SDK marks it itself at the
    /// display link's first frame; an explicit earlier mark wins.
    public static func markFirstFrame() { mark(.firstFrame) }

    /// The first screen is fully drawn, content included (time to full display); the launch
    /// event is reported at this mark.
    public static func markFullyDrawn() { mark(.fullyDrawn) }

    /// `main` was entered; call first thing in `main` for a pre-main phase measured to it.
    public static func markMain() { mark(.main) }

    /// An existing process came back to the foreground (the origin of a `resume` launch).
    public static func markForegroundEntry() { mark(.foregroundEntry) }

    /// Attaches the launch orchestrator's task spans to this launch's `launch` event, which then
    /// carries their trace id and the spans (`traceId`, `tasks`): the server draws the task
    /// waterfall with its critical path from them. Pass what `VigilLaunch`'s runner returned:
    /// `Vigil.attachLaunchTasks(traceId: result.traceId, spans: result.spans)` right after
    /// `run(until: .firstFrame, deadline:)`, and, to include the tasks after the first frame,
    /// again with `runner.snapshot()` before ``markFullyDrawn()``. Only spans named
    /// `launch.task.…` are kept.
    ///
    /// A later call replaces the spans of an earlier one; a call after the launch event was
    /// reported (at the fully-drawn mark or its timeout) is dropped and counted in the
    /// diagnostics' launch counters. Dropped when the SDK is not running. Any thread; returns
    /// at once (the spans are handed to the SDK's queue).
    public static func attachLaunchTasks(traceId: String, spans: [SpanPayload]) {
        SessionSlot.shared.current?.attachLaunchTasks(traceId: traceId, spans: spans)
    }

    private static func mark(_ mark: LaunchMark) {
        guard let session = SessionSlot.shared.current else { return }
        session.mark(mark, at: SessionSlot.shared.clock.monotonicNow())
    }

    // MARK: - Context

    /// Sets the visible page (screen) that following events and frame statistics belong to.
    public static func setPage(_ name: String?) {
        guard let session = SessionSlot.shared.current else { return }
        session.setPage(name, at: SessionSlot.shared.clock.monotonicNow())
    }

    /// Reports an app-state change; nothing is measured in the background or while suspended.
    public static func setAppState(_ state: AppState) {
        guard let session = SessionSlot.shared.current else { return }
        session.setAppState(state, at: SessionSlot.shared.clock.monotonicNow())
    }

    // MARK: - Hang detection controls

    /// Pauses hang detection, e.g. while a modal dialog or a system prompt legitimately keeps
    /// the main run loop's outer turn busy. Calls nest; each needs a ``resume()``.
    public static func pause() {
        guard let session = SessionSlot.shared.current else { return }
        session.pauseHangDetection(at: SessionSlot.shared.clock.monotonicNow())
    }

    /// Ends one ``pause()``; detection restarts when the outermost pause ends.
    public static func resume() {
        guard let session = SessionSlot.shared.current else { return }
        session.resumeHangDetection(at: SessionSlot.shared.clock.monotonicNow())
    }

    /// Lowers the hang threshold (to half by default, at least 100 ms) for a critical flow,
    /// for `seconds` or until ``restoreHangThreshold()`` (Matrix's `lowerRunloopThreshold`).
    public static func lowerHangThreshold(forSeconds seconds: Double? = nil) {
        guard let session = SessionSlot.shared.current else { return }
        let now = SessionSlot.shared.clock.monotonicNow()
        session.lowerHangThreshold(until: seconds.map { now.advanced(byMilliseconds: max(0, $0) * 1000) }, at: now)
    }

    /// Brings the hang threshold back after ``lowerHangThreshold(forSeconds:)``.
    public static func restoreHangThreshold() {
        guard let session = SessionSlot.shared.current else { return }
        session.restoreHangThreshold(at: SessionSlot.shared.clock.monotonicNow())
    }

    /// Sets the hang threshold in milliseconds (clamped to 100 ms … below the fatal threshold).
    public static func setHangThreshold(milliseconds: Double) {
        guard let session = SessionSlot.shared.current else { return }
        session.setHangThreshold(milliseconds, at: SessionSlot.shared.clock.monotonicNow())
    }

    /// What the SDK saw, skipped and dropped so far; nil when not running.
    public static func diagnostics() -> VigilDiagnostics? {
        SessionSlot.shared.current?.diagnostics()
    }
}

/// The running session, behind a lock.
final class SessionSlot: @unchecked Sendable {
    static let shared = SessionSlot()
    private let lock = NSLock()
    private var session: MonitoringSession?
    private var sessionClock: any VigilClock = SystemClock()

    var current: MonitoringSession? {
        lock.lock(); defer { lock.unlock() }
        return session
    }

    var clock: any VigilClock {
        lock.lock(); defer { lock.unlock() }
        return sessionClock
    }

    /// Makes and installs a session unless one runs. The lock is held while `make` runs so
    /// that two concurrent starts cannot both install adapters; `make` must not call back here.
    func startIfIdle(_ make: () -> MonitoringSession?) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard session == nil, let made = make() else { return false }
        session = made
        sessionClock = made.clock
        return true
    }

    func take() -> MonitoringSession? {
        lock.lock(); defer { lock.unlock() }
        let taken = session
        session = nil
        return taken
    }
}
