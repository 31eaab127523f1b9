#if os(Linux)
import CVigilRuntime
import Foundation
import VigilCore

/// Samples a thread's stack on Linux by sending it a dedicated real-time signal whose handler
/// walks the frame pointers of the interrupted context (see `vigil_thread_sampler.h`).
///
/// The frame buffer is allocated once; a sample allocates only the returned array. Concurrent
/// requests are serialised by a lock (the monitoring queue is the only caller in the SDK).
/// Cost on the target thread: one signal delivery and a walk of a few hundred nanoseconds.
public final class SignalThreadSampler: ThreadSampler, @unchecked Sendable {
    private let sampler: OpaquePointer
    private let buffer: UnsafeMutablePointer<UInt>
    private let capacity: UInt32
    private let timeoutNanoseconds: UInt64
    private let requestLock = NSLock()

    /// Why a sampler could not be created.
    public struct SetupError: Error, CustomStringConvertible {
        /// The errno value `vigil_sampler_create` reported.
        public var code: Int32
        public var description: String {
            "cannot create the thread sampler: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    /// A sampler for `thread` recording at most `maxFrames` frames per sample and waiting at
    /// most `timeoutMs` milliseconds for an answer. Reads the thread's stack bounds and, the
    /// first time in the process, installs the signal handler.
    public init(thread: pthread_t, maxFrames: Int = 256, timeoutMs: Double = 20) throws(SetupError) {
        let frames = UInt32(clamping: max(1, min(maxFrames, 4096)))
        var error: Int32 = 0
        guard let sampler = vigil_sampler_create(thread, frames, &error) else { throw SetupError(code: error) }
        self.sampler = sampler
        self.capacity = frames
        self.buffer = .allocate(capacity: Int(frames))
        self.timeoutNanoseconds = UInt64(max(0.001, timeoutMs) * 1_000_000)
    }

    /// A sampler for the calling thread (call it on the thread to be sampled, e.g. the main
    /// thread at start-up). Also unblocks the sampling signal on this thread: a process inherits
    /// its parent's signal mask, and one started from a thread that blocks real-time signals
    /// (libdispatch's worker threads do) would otherwise never answer.
    public static func forCurrentThread(maxFrames: Int = 256, timeoutMs: Double = 20) throws(SetupError) -> SignalThreadSampler {
        let sampler = try SignalThreadSampler(thread: pthread_self(), maxFrames: maxFrames, timeoutMs: timeoutMs)
        _ = vigil_sampler_unblock_signal_on_current_thread()
        return sampler
    }

    deinit {
        vigil_sampler_destroy(sampler)
        buffer.deallocate()
    }

    /// The real-time signal the process's samplers use.
    public static var signalNumber: Int32 { vigil_sampler_signal_number() }

    public func sample() -> Result<CapturedStack, StackCaptureFailure> {
        requestLock.lock(); defer { requestLock.unlock() }
        var count: UInt32 = 0
        var reason: UInt32 = 0
        var latency: UInt64 = 0
        let status = vigil_sampler_sample(sampler, buffer, capacity, &count, &reason, timeoutNanoseconds, &latency)
        switch status {
        case VIGIL_SAMPLE_OK:
            let frames = (0..<Int(count)).map { Address(UInt64(buffer[$0])) }
            return .success(CapturedStack(frames: frames, latencyNanoseconds: latency,
                                        truncated: reason & UInt32(VIGIL_WALK_TRUNCATED) != 0,
                                        complete: reason & UInt32(VIGIL_WALK_COMPLETE) != 0))
        case VIGIL_SAMPLE_TIMEOUT: return .failure(.timeout)
        case VIGIL_SAMPLE_BUSY: return .failure(.busy)
        case VIGIL_SAMPLE_SEND_FAILED: return .failure(.deliveryFailed(code: 0))
        default: return .failure(.unavailable("the sampler rejected the request"))
        }
    }

    public var counters: ThreadSamplerCounters {
        var raw = vigil_sampler_counters()
        vigil_sampler_get_counters(sampler, &raw)
        var counters = ThreadSamplerCounters()
        counters.requested = raw.requested
        counters.completed = raw.completed
        counters.timeouts = raw.timeouts
        counters.deliveryFailures = raw.send_failures
        counters.coalesced = raw.coalesced
        counters.lateAnswers = raw.late_deliveries
        counters.truncated = raw.truncated
        counters.targetNanoseconds = raw.handler_nanoseconds
        return counters
    }
}
#endif
