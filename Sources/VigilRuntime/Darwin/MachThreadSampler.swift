#if canImport(Darwin)
import CVigilRuntime
import Darwin
import Foundation
import VigilCore

/// Samples a thread's stack on Apple platforms: suspend it, read its registers, walk its frame
/// pointers with the shared C walker, resume it. Mirrors ``SignalThreadSampler`` (Linux).
///
/// Between suspend and resume nothing allocates or locks (the suspended thread may hold the
/// allocator's lock): the walk writes into a buffer allocated at creation.
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

    /// A sampler for the calling thread.
    public static func forCurrentThread(maxFrames: Int = 256) -> MachThreadSampler {
        MachThreadSampler(thread: pthread_self(), maxFrames: maxFrames)
    }

    deinit { buffer.deallocate() }

    public func sample() -> Result<CapturedStack, StackCaptureFailure> {
        lock.lock(); defer { lock.unlock() }
        totals.requested += 1
        let started = DispatchTime.now().uptimeNanoseconds
        guard thread_suspend(thread) == KERN_SUCCESS else {
            totals.deliveryFailures += 1
            return .failure(.deliveryFailed(code: 0))
        }
        var reason: UInt32 = 0
        var count: UInt32 = 0
        var stateOK = false
        #if arch(arm64)
        var state = arm_thread_state64_t()
        var stateCount = mach_msg_type_number_t(MemoryLayout<arm_thread_state64_t>.size / MemoryLayout<natural_t>.size)
        let status = withUnsafeMutablePointer(to: &state) {
            $0.withMemoryRebound(to: natural_t.self, capacity: Int(stateCount)) {
                thread_get_state(thread, ARM_THREAD_STATE64, $0, &stateCount)
            }
        }
        if status == KERN_SUCCESS {
            stateOK = true
            count = vigil_walk_frames(UInt(state.__pc), UInt(state.__fp), UInt(state.__sp), bounds, buffer, capacity, &reason)
        }
        #elseif arch(x86_64)
        var state = x86_thread_state64_t()
        var stateCount = mach_msg_type_number_t(MemoryLayout<x86_thread_state64_t>.size / MemoryLayout<natural_t>.size)
        let status = withUnsafeMutablePointer(to: &state) {
            $0.withMemoryRebound(to: natural_t.self, capacity: Int(stateCount)) {
                thread_get_state(thread, x86_THREAD_STATE64, $0, &stateCount)
            }
        }
        if status == KERN_SUCCESS {
            stateOK = true
            count = vigil_walk_frames(UInt(state.__rip), UInt(state.__rbp), UInt(state.__rsp), bounds, buffer, capacity, &reason)
        }
        #endif
        thread_resume(thread)
        totals.targetNanoseconds += DispatchTime.now().uptimeNanoseconds - started
        guard stateOK else {
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
