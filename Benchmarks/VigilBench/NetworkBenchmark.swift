import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Vigil
import VigilCommandLine
import VigilCore
import VigilTestSupport

/// `vigil-bench network`: the latency an instrumented `URLSession` adds to each request, on
/// loopback, against the same requests through an uninstrumented session in the same run.
/// Writes `bench-results/network.json`.
///
/// Requests alternate between the two sessions (which goes first alternates too), so both
/// sides see the same machine load; the added latency is the median of the per-pair
/// differences and, as a cross-check, the difference of the two medians. Goal: ≤ 50 µs.
/// Two instrumented variants: recording only, and recording with a `traceparent` added to
/// every request.
enum NetworkBenchmark: Command {
    static let name = "network"
    static let summary = "latency added per request by the URLSession recorder, on loopback"
    static let usage = """
        usage: vigil-bench network [--out FILE] [--requests N] [--warm-up N] [--body-bytes N]

          --out FILE        result file (default bench-results/network.json)
          --requests N      timed requests per side and variant (default 3000)
          --warm-up N       untimed requests per session first (default 200)
          --body-bytes N    response body size (default 512)
        """

    static let goalMicroseconds = 50.0

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["out", "requests", "warm-up", "body-bytes"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: [], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let out = URL(fileURLWithPath: arguments.value("out") ?? "bench-results/network.json")
        let requests: Int = try arguments.number("requests", default: 3000)
        let warmUp: Int = try arguments.number("warm-up", default: 200)
        let bodyBytes: Int = try arguments.number("body-bytes", default: 512)
        guard requests > 0, warmUp >= 0, (0...(16 << 20)).contains(bodyBytes) else {
            throw UsageError("--requests must be positive, --body-bytes at most 16 MiB")
        }
        #if canImport(FoundationNetworking)
        let body = Data(repeating: 0x61, count: bodyBytes)
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body)
        }
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("users/42/orders")
        let loadBefore = loadAverage()

        var variants: [String: Any] = [:]
        for (variant, traced) in [("recording", false), ("recording_with_traceparent", true)] {
            let recorded = RecordedCount()
            var configuration = NetworkConfiguration()
            if traced { configuration.traceContextHosts = ["127.0.0.1"] }
            // What the SDK does with a kept request: hand it to its monitoring queue.
            let handOff = DispatchQueue(label: "bench.network.handoff")
            let recorder = NetworkRecorder(configuration: configuration, seed: 1) { _, _ in
                handOff.async { recorded.add() }
            }
            let instrumentedConfiguration = URLSessionConfiguration.ephemeral
            guard recorder.instrument(instrumentedConfiguration) else { throw UsageError("could not instrument") }
            let instrumented = URLSession(configuration: instrumentedConfiguration)
            let plain = URLSession(configuration: .ephemeral)
            for _ in 0..<warmUp {
                _ = try timedRequest(plain, url)
                _ = try timedRequest(instrumented, url)
            }
            var plainTimes: [Double] = []
            var instrumentedTimes: [Double] = []
            var differences: [Double] = []
            for index in 0..<requests {
                let plainFirst = index % 2 == 0
                let first = try timedRequest(plainFirst ? plain : instrumented, url)
                let second = try timedRequest(plainFirst ? instrumented : plain, url)
                let (plainTime, instrumentedTime) = plainFirst ? (first, second) : (second, first)
                plainTimes.append(plainTime)
                instrumentedTimes.append(instrumentedTime)
                differences.append(instrumentedTime - plainTime)
            }
            handOff.sync {}
            // Process CPU per request (server thread included, the same on both sides), in
            // alternating blocks: unlike wall time it does not grow when other processes share
            // the cores.
            let block = max(50, requests / 16)
            var cpuPlain = 0.0
            var cpuInstrumented = 0.0
            for _ in 0..<4 {
                var before = processCPUSeconds()
                for _ in 0..<block { _ = try timedRequest(plain, url) }
                cpuPlain += processCPUSeconds() - before
                before = processCPUSeconds()
                for _ in 0..<block { _ = try timedRequest(instrumented, url) }
                handOff.sync {}
                cpuInstrumented += processCPUSeconds() - before
            }
            cpuPlain = cpuPlain / Double(4 * block) * 1e6
            cpuInstrumented = cpuInstrumented / Double(4 * block) * 1e6
            let added = percentile(differences, 0.5)
            variants[variant] = [
                "uninstrumented_us": summary(plainTimes),
                "instrumented_us": summary(instrumentedTimes),
                "added_us_median_of_pair_differences": added,
                "added_us_difference_of_medians": percentile(instrumentedTimes, 0.5) - percentile(plainTimes, 0.5),
                "ratio_of_medians": percentile(instrumentedTimes, 0.5) / max(percentile(plainTimes, 0.5), 1e-9),
                "process_cpu_us_per_request": ["uninstrumented": cpuPlain, "instrumented": cpuInstrumented,
                                               "added": cpuInstrumented - cpuPlain],
                "events_recorded": recorded.value,
                "traceparent_injected": recorder.counters.traceContextInjected,
                "goal_us": goalMicroseconds,
                "meets_goal": added <= goalMicroseconds,
            ]
            instrumented.finishTasksAndInvalidate()
            plain.finishTasksAndInvalidate()
        }
        let result: [String: Any] = [
            "suite": "network",
            "recorder_cost_us_per_request": recorderCost(url: url),
            "requests_per_side": requests,
            "response_body_bytes": bodyBytes,
            "variants": variants,
            "goal": "median added latency per instrumented request <= 50 us (loopback)",
            "load_average_before": loadBefore ?? -1,
            "load_average_after": loadAverage() ?? -1,
            "processors": ProcessInfo.processInfo.activeProcessorCount,
        ]
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let data = try JSONSerialization.data(withJSONObject: result, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: out)
        CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
        return 0
        #else
        throw UsageError("the network benchmark measures the Linux URLProtocol recorder")
        #endif
    }

    #if canImport(FoundationNetworking)
    /// One GET from `resume` to the completion handler, in microseconds.
    private static func timedRequest(_ session: URLSession, _ url: URL) throws -> Double {
        let done = DispatchSemaphore(value: 0)
        final class Outcome: @unchecked Sendable { var failure: String?; var end: UInt64 = 0 }
        let outcome = Outcome()
        let task = session.dataTask(with: url) { data, response, error in
            outcome.end = DispatchTime.now().uptimeNanoseconds
            if let error { outcome.failure = "\(error)" }
            else if (response as? HTTPURLResponse)?.statusCode != 200 || data == nil { outcome.failure = "bad response" }
            done.signal()
        }
        let start = DispatchTime.now().uptimeNanoseconds
        task.resume()
        done.wait()
        if let failure = outcome.failure { throw UsageError("request failed: \(failure)") }
        return Double(outcome.end &- start) / 1000
    }
    #endif

    /// CPU microseconds the recorder's own work takes per finished request (decide, template,
    /// count, hand over), measured on one thread without the network: the part of the added
    /// latency that does not depend on how busy the machine is.
    private static func recorderCost(url: URL) -> [String: Double] {
        let handOff = DispatchQueue(label: "bench.network.cost")
        let recorder = NetworkRecorder(seed: 2) { _, _ in handOff.async {} }
        let observation = NetworkObservation(method: "GET", url: url.absoluteString, status: 200, bytesReceived: 512,
                                             start: Date(), marks: NetworkTransactionMarks(end: 0.4))
        let iterations = 20_000
        for _ in 0..<1000 { recorder.record(observation) }
        let cpuBefore = threadCPUSeconds()
        for _ in 0..<iterations { recorder.record(observation) }
        let recordCost = (threadCPUSeconds() - cpuBefore) / Double(iterations) * 1e6
        handOff.sync {}
        func cost(_ body: () -> Void) -> Double {
            let before = threadCPUSeconds()
            for _ in 0..<iterations { body() }
            return (threadCPUSeconds() - before) / Double(iterations) * 1e6
        }
        let templater = URLTemplater()
        let builder = NetworkEventBuilder()
        var generator = SeededGenerator(seed: 3)
        let text = url.absoluteString
        return ["record_observation": recordCost,
                "split_url": cost { _ = URLParts(text) },
                "template_url": cost { _ = templater.template(for: text) },
                "build_payload": cost { _ = builder.build(observation, using: &generator) }]
    }

    private static func summary(_ values: [Double]) -> [String: Double] {
        ["median": percentile(values, 0.5), "p10": percentile(values, 0.1), "p90": percentile(values, 0.9),
         "p99": percentile(values, 0.99)]
    }

    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// The 1-minute load average (how busy the machine was), nil where /proc is missing.
    private static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }
}

/// Counts recorded requests across threads.
private final class RecordedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
