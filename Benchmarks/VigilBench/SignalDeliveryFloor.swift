import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// When the signal handler of the floor probe ran (monotonic ns); 0 while waiting.
private let signalDeliveryStamp = Atomic<UInt64>(0)

private func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// The reference for the sample latency: how long this kernel takes to run an empty signal
/// handler on a main thread that is busy on another core — what any signal-based sampler pays
/// before it reads a single frame. Measured the same way as ``LatencyProbe`` (a background
/// thread sends, then spins until the handler has stamped the time), in the same run.
enum SignalDeliveryFloor {
    /// `count` deliveries, one every millisecond, to the busy main thread. Must be called on
    /// the main thread.
    static func measure(count: Int) -> [UInt64] {
        #if os(Linux)
        _ = signalDeliveryStamp.load(ordering: .relaxed)  // initialized before the handler can run
        // Low real-time signals: Vigil's sampler and crash handler take theirs from the top.
        let signal = __libc_current_sigrtmin() + 4
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, _, _ in
            signalDeliveryStamp.store(monotonicNanoseconds(), ordering: .releasing)
        }
        action.sa_flags = SA_SIGINFO | SA_RESTART
        var previous = sigaction()
        sigaction(signal, &action, &previous)
        defer { sigaction(signal, &previous, nil) }
        let shared = ProbeRun()
        let main = pthread_self()
        let sender = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            for _ in 0..<count {
                signalDeliveryStamp.store(0, ordering: .relaxed)
                let sent = monotonicNanoseconds()
                guard pthread_kill(main, signal) == 0 else { break }
                var stamp: UInt64 = 0
                let giveUp = sent + 100_000_000
                while stamp == 0, monotonicNanoseconds() < giveUp {
                    stamp = signalDeliveryStamp.load(ordering: .acquiring)
                }
                if stamp >= sent { shared.latencies.append(stamp - sent) }
                usleep(1000)
            }
            shared.stop.pointee = 1
        }
        sender.start()
        _ = latencyProbeSpin(shared.stop)
        return shared.latencies
        #else
        return []
        #endif
    }
}
