import Foundation
import Vigil
import VigilCommandLine
import VigilCore

/// `vigil-sample work`: a fixed main-thread workload, with or without Vigil, so that anyone can
/// time the two side by side (`make bench` does).
enum WorkCommand: Command {
    static let name = "work"
    static let summary = "a fixed main-thread workload (2–20 ms turns with idle gaps), with or without Vigil"
    static let usage = """
        usage: vigil-sample work --seconds S [--no-vigil] [--iterations-per-ms N] [--seed N]
                                 [--threshold-ms T] [--sampling-start-ms MS] [common options]

          --seconds S             run for S seconds: one turn every 40 ms, 2–20 ms of CPU work each
          --no-vigil              do not start Vigil (the baseline)
          --iterations-per-ms N   work calibration (default: measured at start); pass the same
                                  value to both sides of a comparison so they do the same work
          --seed N                the turn sequence (default 1)
          --threshold-ms T        hang threshold (default 2000)
          --sampling-start-ms MS  sample the main thread from MS into a busy turn (default T/4);
                                  0 samples every busy turn, the worst case for overhead

        Prints one JSON line: the work done and the process's CPU time.

        common options:
        \(SampleHarness.commonUsage)
        """

    static func run(_ words: [String]) throws -> Int32 {
        let valued = SampleHarness.commonValued.union(["seconds", "iterations-per-ms", "seed", "threshold-ms",
                                                        "sampling-start-ms"])
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["no-vigil"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let seconds = try arguments.number("seconds", default: Double.nan)
        guard seconds.isFinite, seconds > 0, seconds <= 3600 else { throw UsageError("--seconds must be in (0, 3600]") }
        let calibrated = try arguments.number("iterations-per-ms", default: 0)
        let iterationsPerMs = calibrated > 0 ? calibrated : DemoWorkload.calibrate()
        let seed = try arguments.number("seed", default: UInt64(1))
        let workload = DemoWorkload(count: max(1, Int(seconds * 1000 / DemoWorkload.periodMs)),
                                    iterationsPerMs: iterationsPerMs, seed: seed)

        let withVigil = !arguments.flag("no-vigil")
        let harness = try SampleHarness(arguments: arguments)
        if withVigil {
            var monitoring = VigilConfiguration()
            monitoring.hang.thresholdMs = try arguments.number("threshold-ms", default: monitoring.hang.thresholdMs)
            if arguments.value("sampling-start-ms") != nil {
                monitoring.hang.samplingStartMs = try arguments.number("sampling-start-ms", default: 0.0)
            }
            if let problem = monitoring.hang.problems().first { throw UsageError("\(problem)") }
            guard Vigil.start(try harness.setup(monitoring: monitoring)) else { throw UsageError("Vigil could not start") }
        }
        let started = Date()
        let cpuBefore = DemoWorkload.processCPUSeconds()
        final class Result: @unchecked Sendable { var diagnostics: VigilDiagnostics? }
        let result = Result()
        let status = harness.runMainLoop { finish in
            workload.schedule {
                result.diagnostics = Vigil.diagnostics()
                finish()
            }
        }
        let diagnostics = result.diagnostics
        let summary: [String: Any] = [
            "vigil": withVigil,
            "turns": workload.turns.count,
            "iterationsPerMs": iterationsPerMs,
            "wallSeconds": Date().timeIntervalSince(started),
            "cpuSeconds": DemoWorkload.processCPUSeconds() - cpuBefore,
            "samples": diagnostics.map { Int($0.sampler.completed) } ?? 0,
            "sampleTimeouts": diagnostics.map { Int($0.sampler.timeouts) } ?? 0,
            "ticks": diagnostics.map { Int($0.ticks) } ?? 0,
            "vigilThreadCPUSeconds": diagnostics?.monitorThreadCPUSeconds ?? 0,
            "mainThreadInSamplerSeconds": diagnostics.map { Double($0.sampler.targetNanoseconds) / 1e9 } ?? 0,
        ]
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
        CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
        return status
    }

}
