import VigilCore

/// The timing of one displayed frame, as a display link reports it.
public struct FrameTiming: Sendable, Hashable {
    /// When the frame began (the display's vsync, or the timer's actual fire time on Linux).
    public var timestamp: MonotonicInstant
    /// When the next frame is due; `targetTimestamp - timestamp` is the nominal frame duration
    /// (16.7 ms at 60 Hz, 8.3 ms at 120 Hz).
    public var targetTimestamp: MonotonicInstant

    /// A frame that began at `timestamp` and whose successor is due at `targetTimestamp`.
    public init(timestamp: MonotonicInstant, targetTimestamp: MonotonicInstant) {
        self.timestamp = timestamp
        self.targetTimestamp = targetTimestamp
    }

    /// The nominal frame duration in nanoseconds (0 when the target is not after the
    /// timestamp).
    public var frameDurationNanoseconds: UInt64 {
        targetTimestamp > timestamp ? targetTimestamp.nanoseconds - timestamp.nanoseconds : 0
    }
}

/// A display link: calls its observers on the main thread once per frame.
///
/// Linux has no display, so ``RunLoopFrameClock`` is a timer on the main run loop at the
/// refresh rate that an app's (or the sample's) render loop runs from; a blocked main thread
/// delays it exactly as it would delay a real display link. Apple platforms:
/// `DisplayLinkFrameSource` (`CADisplayLink`).
public protocol FrameTimingSource: AnyObject, Sendable {
    /// Adds `body`, called on the main thread at every frame in the order observers were added.
    func addFrameObserver(_ body: @escaping @Sendable (FrameTiming) -> Void)
    /// Starts delivering frames. Call on the main thread.
    func start()
    /// Stops delivering frames. Call on the main thread.
    func stop()
}
