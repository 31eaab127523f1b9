import CoreFoundation
import Foundation
import Vigil
import VigilCommandLine
import VigilCore
import VigilRuntime

/// What every `vigil-sample` scenario shares: the common options (`--out`, `--data-dir`, and
/// `--server`/`--key` to run the SDK's real delivery pipeline), starting Vigil, running the main
/// run loop until the scenario finishes, uploading before exit, and printing what was detected.
///
/// Without `--server`, events go to `events.jsonl` in the data directory and to `--out`. With
/// `--server URL --key KEY`, Vigil starts as an app would: the durable store in
/// `DATA-DIR/events`, the uploader and the remote configuration, pointed at that server; `--out`
/// then receives a copy of every stored event. A scenario that ends normally waits (at most
/// `--upload-timeout` seconds) for the server to acknowledge every stored event, prints what was
/// not sent and exits with status 3 if anything was left; the data directory is then kept, so
/// the next run with it sends the rest.
final class SampleHarness: @unchecked Sendable {
    /// Options every scenario accepts.
    static let commonValued: Set<String> = ["out", "data-dir", "server", "key", "upload-delay-ms", "upload-timeout",
                                            "app-version", "app-build", "user"]

    /// The common options, for each scenario's usage text.
    static let commonUsage = """
          --out FILE             write every event as JSON lines to FILE
          --data-dir DIR         the SDK's directory (default: a temporary one, removed at exit)
          --server URL           upload through the SDK's durable store and uploader to the Vigil
                                 server at URL (e.g. http://127.0.0.1:8750), as an app does
          --key KEY              the project's ingest key (with --server)
          --upload-delay-ms MS   wait after start before the first upload (default: the SDK's, 5000)
          --upload-timeout S     at the end, wait at most S seconds for the server to acknowledge
                                 every stored event (default 30); exit status 3 if some were left
          --app-version V        the release the events belong to (default: Vigil's version)
          --app-build B          its build (default 1)
          --user ID              the app's user id (sent hashed)
        """

    /// Where events go besides the SDK's own store: `--server` and its options.
    struct Upload {
        var server: URL
        var key: String
        var delaySeconds: Double?
        var timeoutSeconds: Double
    }

    /// Collects the scenario's events (for the summary) and writes each to `--out`.
    final class Recorder: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private var collected: [Event] = []
        let file: JSONLinesFileSink?

        init(file: JSONLinesFileSink?) { self.file = file }

        func emit(_ event: Event) {
            file?.emit(event)
            lock.lock(); collected.append(event); lock.unlock()
        }

        var events: [Event] {
            lock.lock(); defer { lock.unlock() }
            return collected
        }
    }

    let recorder: Recorder
    let dataDirectory: URL
    /// The server to upload to, when `--server` was given.
    let upload: Upload?
    /// The release the events belong to (`--app-version`, `--app-build`).
    let app: AppInfo
    /// The app's user id (`--user`).
    let user: String?
    private let removeDataDirectory: Bool
    /// Set by the finish of ``runMainLoop(_:)`` (any thread) before the loop stops.
    private var drain: VigilUploadDrain?
    private let drainLock = NSLock()

    /// Reads `--out` and `--data-dir` from `arguments`; without `--data-dir` a fresh temporary
    /// directory is used and removed at the end (so no marker of an earlier run leaks in).
    init(arguments: Arguments) throws {
        var file: JSONLinesFileSink?
        if let out = arguments.value("out") {
            do {
                file = try JSONLinesFileSink(url: URL(fileURLWithPath: out), truncate: true)
            } catch {
                throw UsageError("--out: \(error)")
            }
        }
        recorder = Recorder(file: file)
        if let directory = arguments.value("data-dir") {
            dataDirectory = URL(fileURLWithPath: directory, isDirectory: true)
            removeDataDirectory = false
        } else {
            dataDirectory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
                .appendingPathComponent("vigil-sample-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
            removeDataDirectory = true
        }
        upload = try Self.upload(arguments)
        let version = arguments.value("app-version") ?? VigilVersion.string
        let build = arguments.value("app-build") ?? "1"
        guard !version.isEmpty, !build.isEmpty else { throw UsageError("--app-version and --app-build must not be empty") }
        app = AppInfo(id: "dev.vigil.sample", version: version, build: build)
        user = arguments.value("user")
    }

    /// Reads `words` of a scenario that takes only the common options.
    convenience init(words: [String]) throws {
        let arguments = try Arguments(words, valued: Self.commonValued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: Self.commonValued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        try self.init(arguments: arguments)
    }

    /// Reads `--server`, `--key`, `--upload-delay-ms` and `--upload-timeout`.
    private static func upload(_ arguments: Arguments) throws -> Upload? {
        guard let text = arguments.value("server") else {
            for option in ["key", "upload-delay-ms", "upload-timeout"] where arguments.value(option) != nil {
                throw UsageError("--\(option) needs --server")
            }
            return nil
        }
        guard let server = URL(string: text), let scheme = server.scheme?.lowercased(), scheme == "http" || scheme == "https",
              server.host?.isEmpty == false else {
            throw UsageError("--server: expected an http(s) URL such as http://127.0.0.1:8750, not \"\(text)\"")
        }
        guard let key = arguments.value("key"), !key.isEmpty else { throw UsageError("--server needs --key (the project's ingest key)") }
        var delay: Double?
        if arguments.value("upload-delay-ms") != nil {
            let milliseconds = try arguments.number("upload-delay-ms", default: 0.0)
            guard milliseconds.isFinite, (0...600_000).contains(milliseconds) else {
                throw UsageError("--upload-delay-ms must be between 0 and 600000")
            }
            delay = milliseconds / 1000
        }
        let timeout = try arguments.number("upload-timeout", default: 30.0)
        guard timeout.isFinite, (0...3600).contains(timeout) else { throw UsageError("--upload-timeout must be between 0 and 3600 seconds") }
        return Upload(server: server, key: key, delaySeconds: delay, timeoutSeconds: timeout)
    }

    /// The setup every scenario starts from: the sample's app info and, without `--server`,
    /// events to the SDK's file in the data directory and to `--out`; with `--server`, the
    /// SDK's own store and uploader (and a copy to `--out`).
    func setup(monitoring: VigilConfiguration, frameSource: (any FrameTimingSource)? = nil) throws -> VigilSetup {
        let tags = ["scenario": CommandLine.arguments.dropFirst().first ?? ""]
        if let upload {
            var setup = VigilSetup(app: app, monitoring: monitoring, serverURL: upload.server, ingestKey: upload.key,
                                   dataDirectory: dataDirectory, tags: tags, frameSource: frameSource)
            setup.uploadDelaySeconds = upload.delaySeconds
            setup.eventObserver = recorder
            setup.userID = user
            return setup
        }
        let sdkFile: JSONLinesFileSink
        do {
            sdkFile = try JSONLinesFileSink(url: dataDirectory.appendingPathComponent("events.jsonl"))
        } catch {
            throw UsageError("--data-dir: \(error)")
        }
        var setup = VigilSetup(app: app, monitoring: monitoring, sink: EventSinkGroup([sdkFile, recorder]),
                               dataDirectory: dataDirectory, tags: tags, frameSource: frameSource)
        setup.userID = user
        return setup
    }

    /// Runs the main run loop until `scenario` calls its `finish` argument, then stops Vigil
    /// (which flushes pending reports; with `--server`, also uploads what is stored), prints
    /// the summary and returns the exit status: 0, or 3 when events were left unsent.
    func runMainLoop(_ scenario: (_ finish: @escaping @Sendable () -> Void) -> Void) -> Int32 {
        let timeout = upload?.timeoutSeconds
        scenario {
            if let timeout {
                let drained = Vigil.stop(uploadingFor: timeout)
                self.drainLock.lock()
                self.drain = drained
                self.drainLock.unlock()
            } else {
                Vigil.stop()
            }
            CFRunLoopStop(CFRunLoopGetMain())
        }
        CFRunLoopRun()
        printSummary()
        recorder.file?.synchronize()
        var status: Int32 = 0
        if let upload {
            status = reportUpload(upload)
        }
        if removeDataDirectory, status == 0 { try? FileManager.default.removeItem(at: dataDirectory) }
        return status
    }

    /// Prints what the uploader did; 3 when events were left in the store.
    private func reportUpload(_ upload: Upload) -> Int32 {
        drainLock.lock()
        let drain = self.drain
        drainLock.unlock()
        guard let drain, let uploader = drain.statistics.uploader else {
            CommandDispatcher.writeStandardError("vigil-sample: Vigil was not uploading to \(upload.server.absoluteString)\n")
            return 3
        }
        var line = "vigil-sample: upload to \(upload.server.absoluteString): \(uploader.eventsAccepted) accepted, "
            + "\(uploader.eventsRejected) rejected, \(drain.eventsLeft) left unsent, "
            + "\(uploader.requests) request(s), \(String(format: "%.2f", drain.waitedSeconds)) s waited at exit"
        let dropped = drain.statistics.store.droppedTotal + uploader.droppedEvents + uploader.droppedTooLarge
        if dropped > 0 { line += ", \(dropped) dropped" }
        CommandDispatcher.writeStandardOutput(line + "\n")
        for reason in uploader.rejectionReasons.keys.sorted() {
            CommandDispatcher.writeStandardOutput("  rejected (\(uploader.rejectionReasons[reason] ?? 0)): \(reason)\n")
        }
        guard drain.isComplete else {
            let causes = uploader.retries.map { "\($0.key)×\($0.value)" }.sorted().joined(separator: ", ")
            CommandDispatcher.writeStandardError(
                "vigil-sample: \(drain.eventsLeft) event(s) not acknowledged within \(upload.timeoutSeconds) s"
                    + (causes.isEmpty ? "" : " (failed tries: \(causes))")
                    + "; they stay in \(dataDirectory.appendingPathComponent("events").path) for the next run with that --data-dir\n")
            return 3
        }
        return 0
    }

    /// Schedules `body` on the main run loop `seconds` from now (a timer, so it runs in its own
    /// run-loop turn, as app code does).
    static func after(_ seconds: Double, _ body: @escaping @Sendable () -> Void) {
        let timer = Timer(fire: Date().addingTimeInterval(seconds), interval: 0, repeats: false) { _ in body() }
        RunLoop.main.add(timer, forMode: .common)
    }

    private func printSummary() {
        let events = recorder.events
        var lines = ["vigil-sample: \(events.count) event(s)"]
        for event in events { lines.append("  " + EventSummary.line(for: event)) }
        CommandDispatcher.writeStandardOutput(lines.joined(separator: "\n") + "\n")
    }
}
