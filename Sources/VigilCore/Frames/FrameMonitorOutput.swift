/// Something the ``FrameMonitor`` tells its caller to do.
public enum FrameMonitorOutput: Sendable, Hashable {
    /// No frame has been rendered for the frozen-frame threshold: capture the main thread's
    /// stack now and feed it with ``FrameMonitor/recordFreezeStack(_:at:)``. Requested exactly
    /// once per freeze; re-armed when the next frame is rendered.
    case captureStackRequested
    /// Frame statistics of one page, ready to wrap into a `frames` event.
    case report(FramesPayload)
}
