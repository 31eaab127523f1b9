import VigilCore

/// A frame window's counts, kept as columns of its `apm_event` row (schema 12) so that the
/// frame views filtered by OS version, device model or page sum columns instead of parsing
/// each window's JSON. Value type.
public struct FrameCounts: Sendable, Hashable {
    /// Frames rendered in the window.
    public var rendered: Int64
    /// Frames dropped.
    public var dropped: Int64
    /// Gaps that dropped 3 frames or more.
    public var slow: Int64
    /// Gaps that dropped 7 frames or more.
    public var severe: Int64
    /// Frozen frames (gaps of 700 ms or more).
    public var frozen: Int64

    /// The counts of a decoded frame window.
    public init(_ frames: FramesPayload) {
        rendered = Int64(frames.frames)
        dropped = Int64(frames.dropped)
        slow = Int64(frames.slow)
        severe = Int64(frames.severe)
        frozen = Int64(frames.frozen)
    }

    /// The counts of `record` when it is a frame window: those it carries, else read from its
    /// payload (one decode); nil for another type or a payload that does not decode.
    static func of(_ record: EventRecord) -> FrameCounts? {
        guard record.type == "frames" else { return nil }
        if let counts = record.frameCounts { return counts }
        guard case .frames(let frames)? = EventAnalyzer.decodePayload(.frames, record.payloadJSON) else { return nil }
        return FrameCounts(frames)
    }

    /// The values in the order of ``ServerStore/frameCountColumns``.
    var values: [Int64] { [rendered, dropped, slow, severe, frozen] }
}
