import Foundation
import VigilCore
import VigilRuntime
import VigilTestSupport

/// Runs `vigil-sample crash` as a real process in a data directory of its own, then `vigil-sample
/// report --out` (the next launch) on the same directory, and collects what each did.
final class CrashScenario {
    let directory: TemporaryDirectory
    var dataDirectory: URL { directory.file("data") }
    var crashDirectory: URL { dataDirectory.appendingPathComponent("crashes") }
    var marker: URL { directory.file("marker.txt") }

    /// The Swift runtime's own backtracer runs after Vigil's handler when enabled (the default);
    /// it is switched off for speed except in the test that checks chaining to it.
    static let quietEnvironment = ["SWIFT_BACKTRACE": "enable=no"]

    init() throws {
        directory = try TemporaryDirectory(prefix: "crash")
    }

    /// Runs `vigil-sample crash --kind <kind> <extra>`; returns how it ended.
    func crash(_ kind: String, _ extra: [String] = [], environment: [String: String] = quietEnvironment,
               timeout: Double = 30) throws -> ChildProcess.Outcome {
        try ChildProcess.run(try BuildProducts.executable("vigil-sample"),
                             ["crash", "--kind", kind, "--data-dir", dataDirectory.path] + extra,
                             environment: environment, timeout: timeout)
    }

    /// Runs `vigil-sample crash` with the handler told to stall in `section` (after flushing what
    /// it wrote), waits until the report file has bytes (the handler is stalled there), then kills
    /// the process with SIGKILL. Returns the signal that ended it.
    func crashAndKillWhileWriting(_ kind: String, stallIn section: String, within seconds: Double = 30) throws -> Int32? {
        let process = Process()
        process.executableURL = try BuildProducts.executable("vigil-sample")
        process.arguments = ["crash", "--kind", kind, "--data-dir", dataDirectory.path,
                             "--test-stall", section, "--test-stall-ms", "60000"]
        process.environment = ProcessInfo.processInfo.environment.merging(Self.quietEnvironment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && process.isRunning {
            let sizes = rawReports().map { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) ?? 0 }
            if sizes.contains(where: { $0 > 0 }) { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
    }

    /// What the next launch recovered.
    struct Recovery {
        var outcome: ChildProcess.Outcome
        /// What was recovered: every event but the `session` events (see ``sessions``).
        var events: [Event]
        /// The `session` events: the crashed run's (decided at this launch) and this run's own.
        var sessions: [Event]
        /// The `crash-recovery:` line's counters (`recovered`, `cleanRuns`, `discarded`…).
        var counters: [String: Any]

        var crashes: [(event: Event, payload: CrashPayload)] {
            events.compactMap { event in
                if case .crash(let payload) = event.payload { return (event, payload) } else { return nil }
            }
        }

        var recovered: Int { counters["recovered"] as? Int ?? -1 }
        var discarded: [String: Int] { counters["discarded"] as? [String: Int] ?? [:] }
    }

    /// Runs `vigil-sample report --out FILE --data-dir DIR`, the next launch.
    func recover() throws -> Recovery {
        let out = directory.file("recovered-\(UUID().uuidString.prefix(6)).jsonl")
        let outcome = try ChildProcess.run(try BuildProducts.executable("vigil-sample"),
                                           ["report", "--out", out.path, "--data-dir", dataDirectory.path],
                                           environment: Self.quietEnvironment, timeout: 60)
        let data = (try? Data(contentsOf: out)) ?? Data()
        let all = try EventJSON.decodeBatch(data).map { try $0.get() }
        var counters: [String: Any] = [:]
        if let line = outcome.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("crash-recovery: ") }),
           let object = try? JSONSerialization.jsonObject(with: Data(line.dropFirst("crash-recovery: ".count).utf8)) as? [String: Any] {
            counters = object
        }
        return Recovery(outcome: outcome, events: all.filter { $0.type != .session },
                        sessions: all.filter { $0.type == .session }, counters: counters)
    }

    /// The raw report files in the crash directory.
    func rawReports() -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: crashDirectory.path)) ?? [])
            .sorted().map { crashDirectory.appendingPathComponent($0) }
    }

    /// The one raw report, parsed (for what the event does not carry).
    func parsedRawReport() throws -> RawCrashReport {
        let files = rawReports()
        guard files.count == 1 else { throw TestSupportError("expected one raw report, found \(files.map(\.lastPathComponent))") }
        return try RawCrashReportParser().parse(try Data(contentsOf: files[0]))
    }

    /// The app handler's marker lines.
    func markerLines() -> [String] {
        ((try? String(contentsOf: marker, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Every function name (inlined levels included) of the crashed thread's frames.
    static func crashedThreadFunctions(_ event: Event, _ payload: CrashPayload) throws -> [[String]] {
        guard let crashed = payload.threads.first(where: \.crashed) else { return [] }
        return try LLVMSymbolizer.functionNamesWithInlines(stack: crashed.frames, images: event.images ?? [])
    }
}

/// Signal numbers of this machine, for expectations.
enum Signals {
    static let segv = SIGSEGV
    static let abort = SIGABRT
    static let kill = SIGKILL
    /// What a Swift trap raises here.
    static var trap: Int32 {
        #if arch(x86_64)
        return SIGILL
        #else
        return SIGTRAP
        #endif
    }
}
