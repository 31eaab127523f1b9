import Foundation
import VigilCore
import VigilRuntime

/// Crash capture for the SDK: at `Vigil.start(_:)`, recovers the reports earlier runs left and
/// installs the handler for this run; while running, keeps the handler's image snapshot current.
///
/// One per process (the signal handlers are process-wide). Threading: `start` and `stop` run on
/// the caller's thread under a lock; the image refresh runs on its own utility queue.
final class CrashCapture: @unchecked Sendable {
    static let shared = CrashCapture()

    private let lock = NSLock()
    private let refreshQueue = DispatchQueue(label: "vigil.crash.images", qos: .utility)
    private var timer: (any DispatchSourceTimer)?
    private var recovery = CrashRecoveryCounters()
    private var installProblem: String?
    private var reportURL: URL?
    private var lastOutcomes: [CrashReportRecovery.Outcome] = []
    private var recoveryPending = false
    #if canImport(Darwin)
    private var darwinImages: DyldImageList?
    /// Confined to `refreshQueue` once the timer runs.
    private var publishedGeneration: UInt64 = 0
    #endif

    /// The crash directory for `setup`.
    static func directory(for setup: VigilSetup) -> URL {
        setup.crash.directory ?? setup.dataDirectory.appendingPathComponent("crashes", isDirectory: true)
    }

    /// Installs the handler for `session` (unless the `crash` module is off) on the calling
    /// thread, which also gets an alternate signal stack (call on the main thread), then queues
    /// the recovery of earlier runs' reports into `sink` on `queue` (`flush` makes a sink that
    /// cannot say whether an event is stored durable: the SDK's store behind its gate). Queue it
    /// before the
    /// monitoring session reports a leftover hang marker: a marker of a session that crashed is
    /// folded into its crash event.
    ///
    /// On the calling thread: the install (one file open and `fallocate`, one
    /// `dl_iterate_phdr`, the handlers; ≤ 1 ms, see bench-results/crash.json). Reading and
    /// converting old reports happens on `queue`.
    func start(setup: VigilSetup, sink: any EventSink, session: UUID, queue: DispatchQueue,
               flush: (@Sendable () -> Bool)? = nil) {
        lock.lock(); defer { lock.unlock() }
        let directory = Self.directory(for: setup)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let report = setup.crash.reportFileOverride ?? directory.appendingPathComponent("\(session.uuidString).vigilcrash")
        install(setup: setup, session: session, report: report)

        let recovery = CrashReportRecovery(directory: directory, hangMarker: HangMarkerFile(directory: setup.dataDirectory),
                                           excluding: report)
        recoveryPending = true
        queue.async {
            var counters = CrashRecoveryCounters()
            let outcomes = recovery.recover(into: sink, flush: flush, sanitizer: EventSanitizer(), counters: &counters)
            self.lock.lock(); defer { self.lock.unlock() }
            self.recovery = counters
            self.lastOutcomes = outcomes
            self.recoveryPending = false
        }
    }

    private func install(setup: VigilSetup, session: UUID, report: URL) {
        installProblem = nil
        reportURL = nil
        guard setup.monitoring.isEnabled(.crash) else {
            installProblem = "the crash module is disabled"
            return
        }
        let metadata = CrashSessionMetadata(session: session, app: setup.app, device: setup.device,
                                            context: EventContext(page: setup.initialPage, appState: AppState.foreground.rawValue),
                                            tags: setup.tags, started: Date())
        guard let encoded = try? metadata.encoded() else {
            installProblem = "the session metadata could not be encoded"
            return
        }
        var configuration = CrashHandler.Configuration(reportPath: report.path, metadata: encoded)
        configuration.maxFrames = setup.crash.maxFrames
        configuration.maxFramesOtherThreads = setup.crash.maxFramesOtherThreads
        configuration.maxThreads = setup.crash.maxThreads
        configuration.threadTimeoutMs = setup.crash.threadTimeoutMs
        configuration.testFaultSection = CrashHandler.Section.allCases.first { $0.description == setup.crash.testFaultSection }
        configuration.testStallSection = CrashHandler.Section.allCases.first { $0.description == setup.crash.testStallSection }
        configuration.testStallMs = setup.crash.testStallMs
        do {
            #if canImport(Darwin)
            let images = DyldImageList()
            try MachCrashHandler.install(configuration, images: images.images())
            darwinImages = images
            #else
            try CrashHandler.install(configuration)
            #endif
        } catch {
            installProblem = error.description
            return
        }
        reportURL = report
        startImageRefresh(intervalMs: setup.crash.imageRefreshIntervalMs)
    }

    /// Disarms the handler and removes this run's (empty) report file.
    func stop() {
        lock.lock(); defer { lock.unlock() }
        timer?.cancel()
        timer = nil
        if reportURL != nil {
            #if canImport(Darwin)
            MachCrashHandler.disarm(removeFile: true)
            #else
            CrashHandler.disarm(removeFile: true)
            #endif
        }
        reportURL = nil
    }

    var diagnostics: CrashDiagnostics {
        lock.lock(); defer { lock.unlock() }
        #if canImport(Darwin)
        return CrashDiagnostics(recovery: recovery, recoveryPending: recoveryPending, stage: MachCrashHandler.stage,
                                machExceptionPort: MachCrashHandler.portState, handler: CrashHandler.counters,
                                installProblem: installProblem, reportPath: reportURL?.path)
        #else
        return CrashDiagnostics(recovery: recovery, recoveryPending: recoveryPending, stage: CrashHandler.stage,
                                handler: CrashHandler.counters, installProblem: installProblem, reportPath: reportURL?.path)
        #endif
    }

    var outcomes: [CrashReportRecovery.Outcome] {
        lock.lock(); defer { lock.unlock() }
        return lastOutcomes
    }

    private func startImageRefresh(intervalMs: Int) {
        timer?.cancel()
        guard intervalMs > 0 else { return }
        let source = DispatchSource.makeTimerSource(queue: refreshQueue)
        let interval = DispatchTimeInterval.milliseconds(max(50, intervalMs))
        source.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(max(10, intervalMs / 10)))
        #if canImport(Darwin)
        publishedGeneration = darwinImages?.generation ?? 0
        source.setEventHandler { [weak self] in self?.publishImagesIfChanged() }
        #else
        source.setEventHandler { CrashHandler.refreshImages() }
        #endif
        source.resume()
        timer = source
    }

    #if canImport(Darwin)
    /// On `refreshQueue`: hands the dyld image list to the Mach handler when dyld added or
    /// removed an image since the last time.
    private func publishImagesIfChanged() {
        guard let images = darwinImages else { return }
        let generation = images.generation
        guard generation != publishedGeneration else { return }
        publishedGeneration = generation
        MachCrashHandler.publish(images.images())
    }
    #endif
}
