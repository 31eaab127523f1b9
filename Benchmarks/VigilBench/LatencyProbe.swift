import CoreFoundation
import Foundation
import VigilRuntime

/// Spins like a hung main thread in app code until `stop` is set. The flag is re-read after an
/// opaque call (the clock), which the optimizer cannot move a load across; a plain loop on
/// `stop.pointee` would be hoisted into an endless loop at -O.
@inline(never)
func latencyProbeSpin(_ stop: UnsafeMutablePointer<Int>) -> Int {
    var accumulator = 0
    var step = 0
    while true {
        for _ in 0..<100_000 {
            accumulator = accumulator &* 31 &+ step
            step &+= 1
        }
        if DispatchTime.now().uptimeNanoseconds == 0 || stop.pointee != 0 { return accumulator }
    }
}

/// Measures how long one main-thread stack sample takes from request to stack, with the
/// SDK's sampler, while the main thread is busy (spinning in a run-loop turn) or idle (asleep in
/// its run loop).
/// What a probe's background thread hands back to the main thread: the latencies it measured
/// and the flag that ends the main thread's spin.
final class ProbeRun: @unchecked Sendable {
    var latencies: [UInt64] = []
    let stop = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    init() { stop.initialize(to: 0) }
    deinit { stop.deallocate() }
}

enum LatencyProbe {
    struct Result {
        var latencies: [UInt64]
        var timeouts: UInt64
        var medianMicroseconds: Double { percentile(0.5) }
        var p99Microseconds: Double { percentile(0.99) }

        /// In microseconds; infinite without samples, so that an empty run never meets a goal.
        func percentile(_ fraction: Double) -> Double {
            Distribution(latencies.map { Double($0) / 1000 }).percentile(fraction) ?? .infinity
        }

        var json: [String: Any] {
            ["samples": latencies.count, "timeouts": timeouts, "medianMicroseconds": medianMicroseconds,
             "p90Microseconds": percentile(0.9), "p99Microseconds": p99Microseconds,
             "maxMicroseconds": percentile(1)]
        }
    }

    /// Takes `count` samples of the main thread, one every millisecond, from a background
    /// thread. Must be called on the main thread; runs the main run loop meanwhile.
    static func measure(count: Int, mainThreadBusy: Bool) throws -> Result {
        #if os(Linux)
        let sampler = try SignalThreadSampler.forCurrentThread(maxFrames: 256, timeoutMs: 100)
        #else
        let sampler = MachThreadSampler.forCurrentThread(maxFrames: 256)
        #endif
        let shared = ProbeRun()
        let sampling = Thread {
            Thread.sleep(forTimeInterval: 0.05)  // let the main thread enter its busy turn
            for _ in 0..<count {
                if case .success(let stack) = sampler.sample() { shared.latencies.append(stack.latencyNanoseconds) }
                usleep(1000)
            }
            shared.stop.pointee = 1
            CFRunLoopStop(CFRunLoopGetMain())
            CFRunLoopWakeUp(CFRunLoopGetMain())
        }
        sampling.start()
        let timer = Timer(fire: Date(), interval: 0, repeats: false) { _ in
            if mainThreadBusy { _ = latencyProbeSpin(shared.stop) }
        }
        RunLoop.main.add(timer, forMode: .common)
        CFRunLoopRun()
        while shared.stop.pointee == 0 { usleep(1000) }
        return Result(latencies: shared.latencies, timeouts: sampler.counters.timeouts)
    }
}
