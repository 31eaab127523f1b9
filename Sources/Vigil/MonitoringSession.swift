import CoreFoundation
import Foundation
import VigilCore
import VigilRuntime

/// One run of the SDK: the adapters (run-loop observer, watchdog, main-thread sampler, frame
/// source, process facts), the detectors, and the translation of their outputs into events.
///
/// Threading: the main thread only takes timestamps (the observer's and the frame source's
/// pushes into wait-free rings; the public API's calls read the clock and hand over). Everything
/// else runs on ``queue``, one serial queue: the watchdog thread wakes at the detector's next
/// tick and runs the tick there synchronously, which is also where the main thread is sampled.
final class MonitoringSession: @unchecked Sendable {
    let session = UUID()
    let queue = DispatchQueue(label: "vigil.monitor", qos: .userInitiated)

    private let setup: VigilSetup
    private let configuration: VigilConfiguration
    let clock: any VigilClock
    private let sink: any EventSink
    private let sanitizer = EventSanitizer()
    private let images: any LoadedImageSource
    private let facts: any ProcessFactsSource
    private let network: any NetworkPathSource
    private let markerFile: HangMarkerFile
    private let sessionFile: SessionMarkerFile
    private let observer: RunLoopActivityObserver?
    private let frameRing: TimestampRing?
    private let frameSource: (any FrameTimingSource)?
    private let ownsFrameSource: Bool
    private var watchdog: WatchdogThread?

    // Queue-confined state.
    private var sampler: (any ThreadSampler)?
    private var samplerProblem: String?
    private var hang: HangDetector
    private var frames: FrameMonitor
    private var launch: LaunchTimeline?
    private var launchReported = false
    private var resource: ResourceWatch
    private var page: String?
    private var install: UUID?
    private var user: String?
    private var tracker: SessionTracker?
    private var nextSessionWrite: MonotonicInstant
    private let sessionWriteIntervalMs: Double
    private var appState: AppState = .foreground
    private var nextResourceDue: MonotonicInstant
    private var lastResourceEvent: MonotonicInstant?
    private var hangCPUBaseline: (instant: MonotonicInstant, cpuSeconds: Double)?
    private var sawFirstFrame = false
    private var activitiesDroppedSeen: UInt64 = 0
    private var stopped = false
    private var eventsEmitted = 0
    private var eventsSanitized = 0
    private var ticks: UInt64 = 0
    private var latencies: [UInt64] = []
    private var latencyCursor = 0

    private static let latencyHistory = 4096
    /// While frames are monitored, the watchdog ticks at least this often so that a freeze is
    /// noticed (and its stack captured) while it lasts.
    private static let frameCheckIntervalMs = 100.0

    init(setup: VigilSetup, sink: any EventSink) {
        self.setup = setup
        self.configuration = setup.monitoring.clamped()
        self.clock = setup.clock
        self.sink = sink
        self.images = PlatformAdapters.imageSource()
        self.facts = PlatformAdapters.processFacts()
        self.markerFile = HangMarkerFile(directory: setup.dataDirectory)
        self.sessionFile = SessionMarkerFile(dataDirectory: setup.dataDirectory)
        let interval = setup.sessionMarkerIntervalSeconds
        sessionWriteIntervalMs = (interval.isFinite ? min(300, max(0.2, interval)) : 5) * 1000
        self.page = setup.initialPage
        let network = PlatformAdapters.networkPath(queue: queue)
        self.network = network
        hang = HangDetector(configuration: configuration.hang, clock: clock)
        frames = FrameMonitor(configuration: configuration.frames, clock: clock, page: setup.initialPage)
        resource = ResourceWatch(configuration: configuration.resource)
        let now = clock.monotonicNow()
        nextResourceDue = now
        nextSessionWrite = now.advanced(byMilliseconds: sessionWriteIntervalMs)
        observer = configuration.isEnabled(.hang) ? RunLoopActivityObserver(clock: clock) : nil
        if configuration.isEnabled(.frames) || configuration.isEnabled(.launch) || configuration.isEnabled(.hang) {
            let source = setup.frameSource ?? PlatformAdapters.defaultFrameSource()
            frameSource = source
            ownsFrameSource = setup.frameSource == nil && source != nil
            frameRing = source == nil ? nil : TimestampRing(capacity: 4096)
        } else {
            frameSource = nil
            ownsFrameSource = false
            frameRing = nil
        }
    }

    // MARK: - Start and stop

    /// Installs the adapters. Call on the main thread (the sampler must be created there; from
    /// another thread it is created on the main queue's next turn).
    func start(at startInstant: MonotonicInstant) {
        // The session marker is written here, on the caller's thread (two small file writes),
        // so that a crash in the first moments still finds its session; other file reads (the
        // leftover markers, /proc for the process start) happen on the queue, not on the
        // caller's (main) thread; marks the app sends later queue up behind this.
        beginSession(at: startInstant)
        queue.async { [self] in
            let hangSession = markerFile.leftover()?.session
            reportLeftoverMarker()
            reportLeftoverSessions(diedInHang: hangSession)
            if configuration.isEnabled(.launch), let processStart = facts.processStartTime() {
                var timeline = LaunchTimeline(processStart: processStart, facts: setup.launchFacts,
                                              configuration: configuration.launch, clock: clock)
                timeline.mark(.sdkStart, at: startInstant)
                if setup.launchFacts.isPrewarmed, let faults = facts.pageFaults() {
                    timeline.recordPageFaults(faults, at: .sdkStart)
                }
                launch = timeline
            }
        }
        observer?.install()
        if let frameSource, let frameRing {
            frameSource.addFrameObserver { timing in
                frameRing.push(code: UInt32(clamping: timing.frameDurationNanoseconds), instant: timing.timestamp)
            }
            if ownsFrameSource { frameSource.start() }
        }
        if configuration.isEnabled(.hang) || configuration.isEnabled(.frames) {
            if Thread.isMainThread {
                installSampler()
            } else {
                DispatchQueue.main.async { self.installSampler() }
            }
        }
        let watchdog = WatchdogThread(intervalMs: max(10, hang.idleTickIntervalMs), clock: clock) { [weak self] tick in
            guard let self else { return nil }
            return self.queue.sync { self.tick(tick) }
        }
        self.watchdog = watchdog
        watchdog.start()
    }

    private func installSampler() {
        let result = PlatformAdapters.samplerForCurrentThread(maxFrames: configuration.hang.maxFramesPerSample,
                                                              timeoutMs: setup.sampleTimeoutMs)
        queue.async {
            switch result {
            case .success(let sampler): self.sampler = sampler
            case .failure(let problem): self.samplerProblem = problem.reason
            }
        }
    }

    /// Stops monitoring: processes what the main thread handed over, reports a hang in progress
    /// (cut at this moment), flushes frame statistics and a measured launch. Blocks the caller
    /// until done; safe from any thread but the monitoring queue.
    func stop() {
        watchdog?.stop()
        observer?.uninstall()
        if ownsFrameSource, let frameSource {
            if Thread.isMainThread { frameSource.stop() } else { DispatchQueue.main.async { frameSource.stop() } }
        }
        queue.sync {
            guard !stopped else { return }
            let now = clock.monotonicNow()
            drainActivities()
            drainFrames()
            if configuration.isEnabled(.hang) { handle(hang.pause(at: now), at: now) }
            if configuration.isEnabled(.frames) {
                for payload in frames.flush(at: now, final: true) { emitFrames(payload) }
            }
            reportLaunchIfDue(at: now, final: true)
            endSessionCleanly(at: now)
            stopped = true
        }
    }

    // MARK: - Calls from the app (any thread; only the timestamp is taken on the caller's)

    func mark(_ mark: LaunchMark, at instant: MonotonicInstant) {
        queue.async { self.applyMark(mark, at: instant) }
    }

    func attachLaunchTasks(traceId: String, spans: [SpanPayload]) {
        queue.async {
            self.launch?.attachTasks(traceId: traceId, spans: spans, launchReported: self.launchReported)
        }
    }

    func setPage(_ name: String?, at instant: MonotonicInstant) {
        queue.async {
            self.page = name
            self.frames.pageChanged(to: name, at: instant)
        }
    }

    func setAppState(_ state: AppState, at instant: MonotonicInstant) {
        queue.async {
            self.appState = state
            if self.tracker != nil {
                self.tracker!.appStateChanged(state, at: instant)
                self.writeSessionMarker(at: instant)
            }
            self.handle(self.hang.appStateChanged(state, at: instant), at: instant)
            self.frames.appStateChanged(state, at: instant)
        }
    }

    func pauseHangDetection(at instant: MonotonicInstant) {
        queue.async { self.handle(self.hang.pause(at: instant), at: instant) }
    }

    func resumeHangDetection(at instant: MonotonicInstant) {
        queue.async { self.handle(self.hang.resume(at: instant), at: instant) }
    }

    func lowerHangThreshold(until deadline: MonotonicInstant?, at instant: MonotonicInstant) {
        queue.async { self.hang.lowerThreshold(until: deadline, at: instant) }
    }

    func restoreHangThreshold(at instant: MonotonicInstant) {
        queue.async { self.hang.restoreThreshold(at: instant) }
    }

    func setHangThreshold(_ milliseconds: Double, at instant: MonotonicInstant) {
        queue.async { self.hang.setThreshold(milliseconds, at: instant) }
    }

    func diagnostics() -> VigilDiagnostics {
        queue.sync {
            let ordered = latencies.count < Self.latencyHistory ? latencies
                : Array(latencies[latencyCursor...] + latencies[..<latencyCursor])
            return VigilDiagnostics(
                session: session.uuidString, hang: hang.counters, frames: frames.counters, launch: launch?.counters,
                resource: resource.counters, sampler: sampler?.counters ?? ThreadSamplerCounters(),
                samplerUnavailable: samplerProblem, processFacts: facts.counters,
                droppedActivities: observer?.dropped ?? 0, droppedFrames: frameRing?.dropped ?? 0,
                eventsEmitted: eventsEmitted, eventsSanitized: eventsSanitized, ticks: ticks,
                monitorThreadCPUSeconds: watchdog?.cpuSeconds ?? 0,
                recentSampleLatenciesNanoseconds: ordered)
        }
    }

    // MARK: - The tick (monitoring queue)

    private func tick(_ tick: WatchdogTick) -> MonotonicInstant? {
        guard !stopped else { return nil }
        ticks += 1
        let now = tick.fired
        drainActivities()
        drainFrames()
        var next = now.advanced(byMilliseconds: 500)
        var captured: (frames: [Address], at: MonotonicInstant)?
        if configuration.isEnabled(.hang) {
            let result = hang.watchdogTick(scheduled: tick.scheduled, actual: tick.fired)
            handle(result.outputs, at: now)
            if result.takeSample {
                if let stack = captureMainThread() {
                    hang.recordSample(stack.frames, at: stack.at)
                    captured = stack
                } else {
                    hang.recordSampleFailure(at: now)
                }
            }
            next = result.nextTick
        }
        if configuration.isEnabled(.frames), sawFirstFrame {
            for output in frames.check(at: now) {
                switch output {
                case .captureStackRequested:
                    if let stack = captured ?? captureMainThread() { frames.recordFreezeStack(stack.frames, at: stack.at) }
                case .report(let payload):
                    emitFrames(payload)
                }
            }
            next = min(next, now.advanced(byMilliseconds: Self.frameCheckIntervalMs))
        }
        if configuration.isEnabled(.resource) {
            if now >= nextResourceDue { sampleResources(at: now) }
            next = min(next, nextResourceDue)
        }
        reportLaunchIfDue(at: now, final: false)
        if now >= nextSessionWrite { writeSessionMarker(at: now) }
        return min(next, nextSessionWrite)
    }

    private func drainActivities() {
        guard let observer else { return }
        var last: MonotonicInstant?
        observer.drain { record in
            last = record.instant
            guard let activity = Self.activity(fromCode: record.code) else { return }
            handle(hang.runLoopActivity(activity, at: record.instant), at: record.instant)
        }
        // A full ring drops the newest observations, so the gap follows what was drained (give
        // or take records pushed while draining): the detector abandons the turn it was
        // measuring and starts afresh.
        let dropped = observer.dropped
        if dropped > activitiesDroppedSeen {
            activitiesDroppedSeen = dropped
            let at = last ?? clock.monotonicNow()
            handle(hang.runLoopActivitiesLost(at: at), at: at)
        }
    }

    private func drainFrames() {
        guard let frameRing else { return }
        frameRing.drain { record in
            let durationMs = Double(record.code) / 1_000_000
            if configuration.isEnabled(.hang) { hang.frameRendered(at: record.instant, frameDurationMs: durationMs) }
            if configuration.isEnabled(.frames) {
                let target = record.instant.advanced(byNanoseconds: Int64(record.code))
                for output in frames.frame(timestamp: record.instant, targetTimestamp: target) {
                    switch output {
                    case .captureStackRequested:
                        // A frame just arrived: the freeze is over, there is nothing to capture.
                        break
                    case .report(let payload):
                        emitFrames(payload)
                    }
                }
            }
            if !sawFirstFrame {
                sawFirstFrame = true
                // The display link's first frame is the time to initial display, unless the app
                // marked it itself.
                if launch?.instant(of: .firstFrame) == nil { applyMark(.firstFrame, at: record.instant) }
            }
        }
    }

    private func captureMainThread() -> (frames: [Address], at: MonotonicInstant)? {
        guard let sampler else { return nil }
        let at = clock.monotonicNow()
        switch sampler.sample() {
        case .success(let stack):
            if latencies.count < Self.latencyHistory {
                latencies.append(stack.latencyNanoseconds)
            } else {
                latencies[latencyCursor] = stack.latencyNanoseconds
                latencyCursor = (latencyCursor + 1) % Self.latencyHistory
            }
            return (stack.frames, at)
        case .failure:
            return nil
        }
    }

    // MARK: - Outputs to events

    private func handle(_ outputs: [HangDetectorOutput], at now: MonotonicInstant) {
        for output in outputs {
            switch output {
            case .hangBegan(let marker):
                hangCPUBaseline = facts.cpuSeconds().map { (now, $0) }
                persist(marker)
            case .hangUpdated(let marker):
                persist(marker)
            case .hangEnded:
                markerFile.remove()
            case .report(var payload):
                if let baseline = hangCPUBaseline, let cpu = facts.cpuSeconds() {
                    let seconds = clock.monotonicNow().milliseconds(since: baseline.instant) / 1000
                    if seconds > 0 { payload.cpuPercent = max(0, cpu - baseline.cpuSeconds) / seconds * 100 }
                }
                hangCPUBaseline = nil
                payload.memoryBytes = facts.memoryBytes()
                let addresses = payload.stacks.flatMap(\.frames) + (payload.hotStack ?? [])
                emit(.hang(payload), time: payload.start, stackAddresses: addresses)
            }
        }
    }

    private func persist(_ marker: HangMarker) {
        let addresses = marker.stacks.flatMap(\.frames) + (marker.hotStack ?? [])
        markerFile.write(HangMarkerFile.Record(session: session, marker: marker,
                                               images: images.images(containing: addresses), context: context()))
    }

    /// A marker left by a process that died inside a hang becomes that session's `fatal` hang.
    private func reportLeftoverMarker() {
        guard let record = markerFile.leftover() else { return }
        let payload = record.marker.fatalPayload()
        var event = Event(time: payload.start, session: record.session, app: setup.app, device: setup.device,
                          context: record.context, tags: setup.tags,
                          images: record.images.isEmpty ? nil : record.images, install: install, user: user,
                          payload: .hang(payload))
        deliver(&event)
        markerFile.remove()
    }

    // MARK: - Sessions and installs

    /// Loads the install id, hashes the user id, and starts this session's marker (its lock
    /// first, so another process sharing the directory never takes it for a dead one). Runs in
    /// ``start(at:)`` before anything is queued, so the queue sees what it sets.
    private func beginSession(at instant: MonotonicInstant) {
        install = InstallIdentity(dataDirectory: setup.dataDirectory).current()
        if let given = setup.userID, !given.isEmpty {
            user = setup.sendsRawUserID ? given : SHA256Digest.hex(given)
        }
        tracker = SessionTracker(session: session, install: install, user: user, app: setup.app, device: setup.device,
                                 tags: setup.tags, at: instant, wallStart: clock.wallTime(of: instant), state: appState)
        sessionFile.claim(session)
        writeSessionMarker(at: instant)
    }

    private func writeSessionMarker(at instant: MonotonicInstant) {
        guard !stopped, tracker != nil else { return }
        nextSessionWrite = instant.advanced(byMilliseconds: sessionWriteIntervalMs)
        sessionFile.write(tracker!.update(at: instant))
    }

    /// A clean stop: the `exited` session is reported now, then its marker goes.
    private func endSessionCleanly(at instant: MonotonicInstant) {
        guard tracker != nil else { return }
        let ended = tracker!.endCleanly(at: instant)
        sessionFile.write(ended.marker)
        var event = ended.marker.event(ended.payload)
        deliver(&event)
        sessionFile.release()
        tracker = nil
    }

    /// The sessions earlier processes left unfinished become their `session` events, decided
    /// from the crash reports recovered just before (same queue), the hang marker and what
    /// runs now. A session whose crash report could not be stored yet waits for a later launch.
    private func reportLeftoverSessions(diedInHang hangSession: UUID?) {
        var crashed = Set<UUID>()
        var pending = Set<UUID>()
        for outcome in CrashCapture.shared.outcomes {
            switch outcome {
            case .recovered(_, _, let session): crashed.insert(session)
            case .deferred(let file), .skippedLive(let file):
                if let session = UUID(uuidString: String(file.prefix(36))) { pending.insert(session) }
            case .cleanRun, .discarded: break
            }
        }
        let decidedAt = clock.wallNow()
        for leftover in sessionFile.leftovers() {
            let marker = leftover.marker
            if pending.contains(marker.session) {
                sessionFile.keep(leftover)
                continue
            }
            let evidence = SessionEvidence(crashReported: crashed.contains(marker.session),
                                           diedInHang: hangSession == marker.session,
                                           currentApp: setup.app, currentOSVersion: setup.device.osVersion)
            var event = marker.event(SessionOutcomeDecider.decide(marker, evidence: evidence, decidedAt: decidedAt))
            deliver(&event)
            sessionFile.consume(leftover)
        }
    }

    /// Replaces the install id (the app's reset); later events carry the new one.
    func resetInstall() -> UUID? {
        queue.sync {
            guard let id = InstallIdentity(dataDirectory: setup.dataDirectory).reset() else { return nil }
            install = id
            if tracker != nil {
                tracker!.setInstall(id)
                writeSessionMarker(at: clock.monotonicNow())
            }
            return id
        }
    }

    /// The install id events carry now.
    var installID: UUID? { queue.sync { install } }

    private func emitFrames(_ payload: FramesPayload) {
        let addresses = (payload.stack ?? []) + (payload.frozenFrames ?? []).flatMap { $0.stack ?? [] }
        emit(.frames(payload), time: payload.windowStart, stackAddresses: addresses, page: payload.page)
    }

    private func applyMark(_ mark: LaunchMark, at instant: MonotonicInstant) {
        guard var timeline = launch else { return }
        timeline.mark(mark, at: instant)
        if mark == .firstFrame || mark == .foregroundEntry, let faults = facts.pageFaults() {
            timeline.recordPageFaults(faults, at: mark)
        }
        launch = timeline
        if mark == .fullyDrawn { reportLaunchIfDue(at: clock.monotonicNow(), final: false) }
    }

    private func reportLaunchIfDue(at now: MonotonicInstant, final: Bool) {
        guard !launchReported, let timeline = launch else { return }
        switch timeline.outcome() {
        case .pending:
            return
        case .dropped:
            launchReported = true
        case .completed(let result):
            let fullyDrawn = timeline.instant(of: .fullyDrawn) != nil
            let waitedLongEnough = timeline.instant(of: .firstFrame)
                .map { now.milliseconds(since: $0) >= setup.fullyDrawnTimeoutMs } ?? false
            guard final || fullyDrawn || waitedLongEnough else { return }
            launchReported = true
            emit(.launch(result.payload), time: result.payload.processStart, stackAddresses: [])
        }
    }

    private func sampleResources(at now: MonotonicInstant) {
        nextResourceDue = now.advanced(byMilliseconds: configuration.resource.sampleIntervalMs)
        guard let sample = facts.resourceSample(at: now, threadLimit: 256),
              let payload = resource.record(sample) else { return }
        let due = lastResourceEvent.map { now.milliseconds(since: $0) >= setup.resourceReportIntervalMs } ?? true
        guard payload.cpuBlock != nil || due else { return }
        lastResourceEvent = now
        emit(.resource(payload), time: clock.wallTime(of: now), stackAddresses: [])
    }

    private func context(page explicitPage: String?? = nil) -> EventContext {
        EventContext(page: explicitPage ?? page, appState: appState.rawValue, network: network.currentPath().kind.rawValue)
    }

    /// Records one finished network request (from the network recorder, any thread).
    func recordNetwork(_ payload: NetworkPayload, start: Date) {
        queue.async {
            guard !self.stopped, self.configuration.isEnabled(.network) else { return }
            self.emit(.network(payload), time: start, stackAddresses: [])
        }
    }

    /// Records one finished span (from ``VigilSpanRecorder``, any thread), dated at its start.
    func recordSpan(_ span: SpanPayload) {
        queue.async {
            guard !self.stopped else { return }
            self.emit(.span(span), time: span.start, stackAddresses: [])
        }
    }

    private func emit(_ payload: EventPayload, time: Date, stackAddresses: [Address], page: String?? = nil) {
        let used = stackAddresses.isEmpty ? nil : images.images(containing: stackAddresses)
        var event = Event(time: time, session: session, app: setup.app, device: setup.device,
                          context: context(page: page), tags: setup.tags, images: used, install: install, user: user,
                          payload: payload)
        deliver(&event)
    }

    private func deliver(_ event: inout Event) {
        if sanitizer.sanitize(&event).changed { eventsSanitized += 1 }
        eventsEmitted += 1
        sink.emit(event)
    }

    // MARK: - Run-loop activity codes

    /// The detector's activity for a raw `CFRunLoopActivity` bit, nil for anything else.
    static func activity(fromCode code: UInt32) -> RunLoopActivity? {
        switch UInt(code) {
        case UInt(CFRunLoopActivity.entry.rawValue): return .entry
        case UInt(CFRunLoopActivity.beforeTimers.rawValue): return .beforeTimers
        case UInt(CFRunLoopActivity.beforeSources.rawValue): return .beforeSources
        case UInt(CFRunLoopActivity.beforeWaiting.rawValue): return .beforeWaiting
        case UInt(CFRunLoopActivity.afterWaiting.rawValue): return .afterWaiting
        case UInt(CFRunLoopActivity.exit.rawValue): return .exit
        default: return nil
        }
    }
}
