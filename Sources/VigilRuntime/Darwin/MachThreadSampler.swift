#if canImport(Darwin)
import CVigilRuntime
import Darwin
import Foundation
import VigilCore

/// Samples a thread's stack on Apple platforms: suspend it, read its registers, walk its frame
/// pointers with the shared C walker (adding `lr` for a leaf function, stripping pointer
/// authentication), resume it — all in one C function, `vigil_darwin_sample_thread`. Mirrors
/// ``SignalThreadSampler`` (Linux).
///
/// Between suspend and resume nothing allocates or locks (the suspended thread may hold the
/// allocator's lock): the walk writes into a buffer allocated at creation. A sampler asked to
/// sample its own thread refuses (suspending oneself never returns). The stack bounds are read
/// once, at creation, while nothing is suspended.
public final class MachThreadSampler: ThreadSampler, @unchecked Sendable {
    private let thread: thread_act_t
    private let bounds: vigil_stack_bounds
    private let buffer: UnsafeMutablePointer<UInt>
    private let capacity: UInt32
    private let lock = NSLock()
    private var totals = ThreadSamplerCounters()

    /// A sampler for `thread` recording at most `maxFrames` frames per sample.
    public init(thread: pthread_t, maxFrames: Int = 256) {
        self.thread = pthread_mach_thread_np(thread)
        var bounds = vigil_stack_bounds(low: 0, high: 0)
        _ = vigil_thread_stack_bounds(thread, &bounds)
        self.bounds = bounds
        self.capacity = UInt32(clamping: max(1, min(maxFrames, 4096)))
        self.buffer = .allocate(capacity: Int(capacity))
    }

    /// A sampler for the calling thread, to be sampled from another thread.
    public static func forCurrentThread(maxFrames: Int = 256) -> MachThreadSampler {
        MachThreadSampler(thread: pthread_self(), maxFrames: maxFrames)
    }

    deinit { buffer.deallocate() }

    public func sample() -> Result<CapturedStack, StackCaptureFailure> {
        lock.lock(); defer { lock.unlock() }
        totals.requested += 1
        let started = DispatchTime.now().uptimeNanoseconds
        var reason: UInt32 = 0
        var count: UInt32 = 0
        // Suspend, registers, walk and resume happen inside one C call: no Swift runtime call
        // (retain, allocation, exclusivity check) can run while the target holds a lock.
        let status = vigil_darwin_sample_thread(thread, bounds, buffer, capacity, &count, &reason)
        totals.targetNanoseconds += DispatchTime.now().uptimeNanoseconds - started
        switch status {
        case 0:
            break
        case EDEADLK:
            totals.deliveryFailures += 1
            return .failure(.unavailable("a thread cannot sample itself (suspending it would never return)"))
        case ESRCH:
            totals.deliveryFailures += 1
            return .failure(.deliveryFailed(code: status))
        default:
            totals.deliveryFailures += 1
            return .failure(.unavailable("thread_get_state failed"))
        }
        let frames = (0..<Int(count)).map { Address(UInt64(buffer[$0])) }
        let truncated = reason & UInt32(VIGIL_WALK_TRUNCATED) != 0
        totals.completed += 1
        if truncated { totals.truncated += 1 }
        return .success(CapturedStack(frames: frames, latencyNanoseconds: DispatchTime.now().uptimeNanoseconds - started,
                                    truncated: truncated, complete: reason & UInt32(VIGIL_WALK_COMPLETE) != 0))
    }

    public var counters: ThreadSamplerCounters {
        lock.lock(); defer { lock.unlock() }
        return totals
    }
}
#endif
