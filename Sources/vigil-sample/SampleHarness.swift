import CoreFoundation
import Foundation
import Vigil
import VigilCommandLine
import VigilCore
import VigilRuntime

/// What every `vigil-sample` scenario shares: the `--out FILE` and `--data-dir DIR` options,
/// starting Vigil with a sink that writes every event to `--out` (besides the SDK's own file),
/// running the main run loop until the scenario finishes, and printing what was detected.
final class SampleHarness: @unchecked Sendable {
    /// Options every scenario accepts.
    static let commonValued: Set<String> = ["out", "data-dir"]

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
    private let removeDataDirectory: Bool

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
    }

    /// Reads `words` of a scenario that takes only the common options.
    convenience init(words: [String]) throws {
        let arguments = try Arguments(words, valued: Self.commonValued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: Self.commonValued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        try self.init(arguments: arguments)
    }

    /// The setup every scenario starts from: the sample's app info, events to the SDK's file in
    /// the data directory and to `--out`.
    func setup(monitoring: VigilConfiguration, frameSource: (any FrameTimingSource)? = nil) throws -> VigilSetup {
        let sdkFile: JSONLinesFileSink
        do {
            sdkFile = try JSONLinesFileSink(url: dataDirectory.appendingPathComponent("events.jsonl"))
        } catch {
            throw UsageError("--data-dir: \(error)")
        }
        return VigilSetup(app: AppInfo(id: "dev.vigil.sample", version: VigilVersion.string, build: "1"),
                          monitoring: monitoring, sink: EventSinkGroup([sdkFile, recorder]),
                          dataDirectory: dataDirectory, tags: ["scenario": CommandLine.arguments.dropFirst().first ?? ""],
                          frameSource: frameSource)
    }

    /// Runs the main run loop until `scenario` calls its `finish` argument, then stops Vigil
    /// (which flushes pending reports), prints the summary and returns the exit status.
    func runMainLoop(_ scenario: (_ finish: @escaping @Sendable () -> Void) -> Void) -> Int32 {
        scenario {
            Vigil.stop()
            CFRunLoopStop(CFRunLoopGetMain())
        }
        CFRunLoopRun()
        printSummary()
        recorder.file?.synchronize()
        if removeDataDirectory { try? FileManager.default.removeItem(at: dataDirectory) }
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
