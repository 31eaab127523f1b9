import Foundation
import VigilCommandLine
import VigilRuntime

/// `vigil-bench crash`: what crash capture costs and how fast it writes.
///
/// 1. Signal to report written: runs `vigil-sample crash --kind segv --depth N --announce` as
///    child processes (a stack of at least 64 frames on the crashed thread, two idle threads
///    besides the SDK's own); the child prints CLOCK_MONOTONIC right before its faulting store,
///    the handler stamps the same clock just before the end marker (the report's `timing`
///    record); the difference is the latency. The clock is system-wide, so the two stamps compare.
/// 2. Both sides of the crash: the same crash with and without Vigil, from the announced instant
///    to the parent seeing the child die (`wait4`): what the handler adds to a dying process.
/// 3. Install cost: this executable re-run with `--probe-install` does one cold
///    `CrashHandler.install` (the first of its process: buffers, file, reservation, image
///    snapshot, handlers) and one re-arm, and prints both.
/// The Swift runtime's backtracer is switched off in the children (SWIFT_BACKTRACE=enable=no) on
/// both sides: it would otherwise run after either.
enum CrashBenchmark: Command {
    static let name = "crash"
    static let summary = "crash capture: signal-to-report latency (64-frame stack), install cost, crash-to-exit with/without Vigil"
    static let usage = """
        usage: vigil-bench crash --sample PATH [--runs N] [--installs N] [--depth N] [--out FILE]

          --sample PATH    the vigil-sample executable
          --runs N         crashes per side (default 30)
          --installs N     cold installs measured, one process each (default 30)
          --depth N        extra frames before the crash (default 60: at least 64 on the crashed thread)
          --out FILE       result JSON (default bench-results/crash.json)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["sample", "runs", "installs", "depth", "out"]
        let arguments = try Arguments(words, valued: valued)
        if arguments.flag("probe-install") { return try probeInstall() }
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let sample = try arguments.required("sample")
        guard FileManager.default.isExecutableFile(atPath: sample) else { throw UsageError("--sample: \(sample) is not executable") }
        let runs: Int = try arguments.number("runs", default: 30)
        let installs: Int = try arguments.number("installs", default: 30)
        let depth: Int = try arguments.number("depth", default: 60)
        guard runs > 0, installs > 0, depth >= 0 else { throw UsageError("--runs and --installs must be positive") }
        let out = arguments.value("out") ?? "bench-results/crash.json"
        setenv("SWIFT_BACKTRACE", "enable=no", 1)

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-bench-crash-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var latencies: [Double] = []
        var handlerTimes: [Double] = []
        var crashedThreadTimes: [Double] = []
        var frameCounts: [Int] = []
        var threadCounts: [Int] = []
        var exitWith: [Double] = []
        var exitWithout: [Double] = []
        for round in 1...runs {
            log("round \(round)/\(runs)")
            // Alternate which side goes first, so a slow phase of the machine does not hit one side.
            for withVigil in (round % 2 == 0 ? [true, false] : [false, true]) {
                let data = scratch.appendingPathComponent("run-\(round)-\(withVigil)")
                var words = ["crash", "--kind", "segv", "--depth", String(depth), "--announce", "--threads", "2",
                             "--data-dir", data.path]
                if !withVigil { words.append("--no-vigil") }
                let child = try ChildRun.start(sample, words, discardStandardError: true)
                guard child.signal == SIGSEGV, let announced = child.announcedNanoseconds else {
                    throw BenchError("the crash child did not die of SIGSEGV after announcing: \(child.output)")
                }
                let exitMs = Double(child.exitedNanoseconds &- announced) / 1e6
                if !withVigil {
                    exitWithout.append(exitMs)
                    continue
                }
                exitWith.append(exitMs)
                let files = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("crashes").path)
                guard files.count == 1 else { throw BenchError("expected one raw report, found \(files)") }
                let report = try RawCrashReportParser().parse(try Data(contentsOf: data.appendingPathComponent("crashes/\(files[0])")))
                guard let timing = report.timing, let crashed = report.crashedThread else { throw BenchError("report without timing") }
                latencies.append(Double(timing.end &- announced) / 1e6)
                handlerTimes.append(Double(timing.end &- timing.entry) / 1e6)
                crashedThreadTimes.append(Double(timing.crashedThreadWritten &- timing.entry) / 1e6)
                frameCounts.append(crashed.frames.count)
                threadCounts.append(report.threads.count)
                try? FileManager.default.removeItem(at: data)
            }
        }

        log("measuring \(installs) cold installs, one process each")
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var coldInstalls: [Double] = []
        var rearms: [Double] = []
        for _ in 0..<installs {
            let child = try ChildRun.start(executable, ["crash", "--probe-install"], discardStandardError: true)
            let fields = child.output.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard child.signal == nil, fields.count == 2 else { throw BenchError("install probe failed: \(child.output)") }
            coldInstalls.append(fields[0] / 1e6)
            rearms.append(fields[1] / 1e6)
        }

        let latency = Distribution(latencies)
        let install = Distribution(coldInstalls)
        let with = Distribution(exitWith)
        let without = Distribution(exitWithout)
        let latencyMedian = latency.median ?? 0
        let installMedian = install.median ?? 0
        let withMedian = with.median ?? 0
        let withoutMedian = without.median ?? 0
        let result: [String: Any] = [
            "suite": "crash",
            "machine": ["processors": ProcessInfo.processInfo.activeProcessorCount, "loadAverage": loadAverage(),
                        "note": "shared machine: compare the two sides of one run, not across runs"],
            "workload": ["runsPerSide": runs, "extraDepth": depth, "idleThreads": 2, "kind": "segv",
                         "crashedThreadFrames": ["min": frameCounts.min() ?? 0, "max": frameCounts.max() ?? 0],
                         "threadsCaptured": ["min": threadCounts.min() ?? 0, "max": threadCounts.max() ?? 0]],
            "signalToReportWrittenMs": latency.summary,
            "handlerEntryToReportWrittenMs": Distribution(handlerTimes).summary,
            "handlerEntryToCrashedThreadWrittenMs": Distribution(crashedThreadTimes).summary,
            "installMs": install.summary,
            "rearmMs": Distribution(rearms).summary,
            "crashToExitMs": ["withoutVigil": without.summary, "withVigil": with.summary,
                              "ratioOfMedians": withoutMedian > 0 ? withMedian / withoutMedian : 0,
                              "addedMedianMs": withMedian - withoutMedian],
            "goals": [
                "signalToReportWrittenMedianMs": ["goal": "<= 5", "measured": latencyMedian, "ratioToGoal": latencyMedian / 5,
                                                  "met": latencyMedian <= 5 && (frameCounts.min() ?? 0) >= 64],
                "installMedianMs": ["goal": "<= 1", "measured": installMedian, "ratioToGoal": installMedian / 1,
                                    "met": installMedian <= 1],
            ],
        ]
        try ResultFile.write(result, to: out)
        CommandDispatcher.writeStandardOutput(String(format: """
            crash: signal to report written median %.3f ms, p90 %.3f ms (goal <= 5 ms; %d-%d frames on the crashed thread)
            crash: install median %.3f ms, p90 %.3f ms (goal <= 1 ms); re-arm median %.3f ms
            crash: crash to exit median %.2f ms with Vigil, %.2f ms without (ratio %.2f)
            crash: results in %@

            """, latencyMedian, latency.percentile(0.9) ?? 0, frameCounts.min() ?? 0, frameCounts.max() ?? 0, installMedian,
            install.percentile(0.9) ?? 0, Distribution(rearms).median ?? 0, withMedian, withoutMedian,
            withoutMedian > 0 ? withMedian / withoutMedian : 0, out))
        return 0
    }

    /// One cold install and one re-arm in this fresh process; prints both in nanoseconds.
    private static func probeInstall() throws -> Int32 {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-bench-install-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Metadata of the size the SDK writes (session, app, device, context, a few tags).
        let metadata = Data(String(repeating: "x", count: 600).utf8)
        func timed(_ name: String) throws -> UInt64 {
            let configuration = CrashHandler.Configuration(reportPath: directory.appendingPathComponent(name).path, metadata: metadata)
            let start = DispatchTime.now().uptimeNanoseconds
            try CrashHandler.install(configuration)
            return DispatchTime.now().uptimeNanoseconds - start
        }
        let cold = try timed("first.vigilcrash")
        let rearm = try timed("second.vigilcrash")
        CrashHandler.disarm(removeFile: true)
        CommandDispatcher.writeStandardOutput("\(cold) \(rearm)\n")
        return 0
    }

    private static func loadAverage() -> [Double] {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }

    private static func log(_ text: String) {
        CommandDispatcher.writeStandardError("crash: \(text)\n")
    }

}
