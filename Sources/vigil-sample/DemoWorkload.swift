import Foundation
import VigilCore

/// Where the sample's busy loops put their results, so the optimizer cannot drop the work.
nonisolated(unsafe) var demoWorkSink: UInt64 = 0

/// Burns `iterations` rounds of integer arithmetic. It calls nothing (only transparent
/// operators), so a stack sample taken inside it always has a frame record leading back to its
/// caller.
@inline(never)
func spinForDemo(_ seed: UInt64, iterations: Int) -> UInt64 {
    var accumulator = seed
    var step = 0
    while step < iterations {
        accumulator = accumulator &* 6_364_136_223_846_793_005 &+ UInt64(truncatingIfNeeded: step)
        step &+= 1
    }
    return accumulator
}

/// Blocks the calling (main) thread with CPU work for `milliseconds`: the hang the `hang`
/// scenario provokes. Its name is what the demo and the real-process tests look for in the
/// symbolicated hot stack, so it is never inlined.
@inline(never)
func blockMainThreadForDemo(milliseconds: Double) {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, milliseconds) * 1_000_000)
    var accumulator: UInt64 = 1
    while DispatchTime.now().uptimeNanoseconds < deadline {
        accumulator = spinForDemo(accumulator, iterations: 50_000)
    }
    demoWorkSink &+= accumulator
}

/// The fixed main-thread workload of `vigil-sample work`: run-loop turns of 2–20 ms of CPU
/// work separated by idle gaps, the same sequence for the same seed.
///
/// The work of a turn is a fixed number of iterations (calibrated once per machine speed by
/// `iterationsPerMs`), not a duration, so that with or without Vigil the process does the
/// same work, and any extra CPU time is Vigil's.
struct DemoWorkload {
    /// Start of each turn relative to the previous one, in ms.
    static let periodMs = 40.0
    /// Iterations of ``spinForDemo`` per turn, in turn order.
    let turns: [Int]

    /// `count` turns of 2–20 ms each at `iterationsPerMs`, drawn from `seed`.
    init(count: Int, iterationsPerMs: Int, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        turns = (0..<count).map { _ in
            let milliseconds = Double.random(in: 2...20, using: &generator)
            return Int(milliseconds * Double(iterationsPerMs))
        }
    }

    /// Iterations of ``spinForDemo`` this machine runs per millisecond (measured over ~50 ms).
    static func calibrate() -> Int {
        let probe = 200_000
        var best = Double.infinity
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            demoWorkSink &+= spinForDemo(demoWorkSink, iterations: probe)
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start))
        }
        return max(1000, Int(Double(probe) / (best / 1_000_000)))
    }

    /// User plus system CPU time of this process so far, in seconds (`getrusage`).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Schedules the turns on the main run loop, one every ``periodMs``, and calls `finished`
    /// on the main thread after the last one.
    func schedule(finished: @escaping @Sendable () -> Void) {
        let start = Date()
        let turns = self.turns
        for (index, iterations) in turns.enumerated() {
            let fire = start.addingTimeInterval(Double(index + 1) * Self.periodMs / 1000)
            let timer = Timer(fire: fire, interval: 0, repeats: false) { _ in
                demoWorkSink &+= spinForDemo(demoWorkSink, iterations: iterations)
                if index == turns.count - 1 { finished() }
            }
            RunLoop.main.add(timer, forMode: .common)
        }
        if turns.isEmpty { finished() }
    }
}
