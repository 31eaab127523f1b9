import VigilCore

/// One captured stack of another thread.
public struct CapturedStack: Sendable, Hashable {
    /// Absolute addresses, innermost first: the interrupted program counter, then one return
    /// address per frame (symbolicate `address - 1` for those).
    public var frames: [Address]
    /// From the request to the copied-out stack, in nanoseconds.
    public var latencyNanoseconds: UInt64
    /// The walk stopped because the buffer was full.
    public var truncated: Bool
    /// The walk reached the outermost frame (rather than stopping at a frame without a frame
    /// pointer).
    public var complete: Bool

    /// A stack with the given frames and walk outcome.
    public init(frames: [Address], latencyNanoseconds: UInt64, truncated: Bool, complete: Bool) {
        self.frames = frames
        self.latencyNanoseconds = latencyNanoseconds
        self.truncated = truncated
        self.complete = complete
    }
}

/// Why a sample could not be taken. The SDK counts these and carries on without the sample.
public enum StackCaptureFailure: Error, Sendable, Hashable {
    /// The thread did not answer within the timeout (it blocks the sampling signal, or was not
    /// scheduled).
    case timeout
    /// Another sample of the same thread was in progress.
    case busy
    /// The request could not be delivered (the thread is gone, or the OS refused).
    case deliveryFailed(code: Int32)
    /// The sampler is not usable on this platform or was not set up.
    case unavailable(String)
}

/// Running totals of a sampler.
public struct ThreadSamplerCounters: Sendable, Hashable {
    /// Calls to ``ThreadSampler/sample()``.
    public var requested: UInt64 = 0
    /// Samples returned with a stack.
    public var completed: UInt64 = 0
    /// Requests the target thread did not answer in time.
    public var timeouts: UInt64 = 0
    /// Requests that could not be delivered (the thread is gone, or the OS refused).
    public var deliveryFailures: UInt64 = 0
    /// Requests that reused a still-pending signal instead of queueing another (Linux).
    public var coalesced: UInt64 = 0
    /// Answers that arrived after their request had timed out.
    public var lateAnswers: UInt64 = 0
    /// Stacks cut at the frame limit.
    public var truncated: UInt64 = 0
    /// Time the sampled thread spent in the sampler's code (the signal handler on Linux; the
    /// suspension on Apple platforms), in nanoseconds.
    public var targetNanoseconds: UInt64 = 0

    /// All zero.
    public init() {}
}

/// Captures the stack of one target thread (the main thread, for hang reports) from another
/// thread.
///
/// Linux: ``SignalThreadSampler`` (a real-time signal and a frame-pointer walk in the
/// handler). Apple platforms: `MachThreadSampler` (`thread_suspend`, `thread_get_state`, walk,
/// `thread_resume`). Both walk frame pointers: code built without them yields truncated stacks.
public protocol ThreadSampler: AnyObject, Sendable {
    /// Takes one sample. Never blocks longer than about twice the sampler's timeout; must not
    /// be called from the target thread.
    func sample() -> Result<CapturedStack, StackCaptureFailure>
    /// Totals since creation.
    var counters: ThreadSamplerCounters { get }
}
