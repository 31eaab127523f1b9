import Foundation

/// Payload of a `frames` event: rendering health of one page over one window.
public struct FramesPayload: Codable, Sendable, Hashable {
    /// The page the window belongs to.
    public var page: String?
    /// Start of the window (wall clock).
    public var windowStart: Date
    /// End of the window (wall clock).
    public var windowEnd: Date
    /// Frames rendered in the window.
    public var frames: Int
    /// Frames per second over the window.
    public var fps: Double
    /// Display refresh rate in Hz at the end of the window (60, 120, …).
    public var refreshRate: Double
    /// Frames dropped in the window, summed over every gap.
    public var dropped: Int
    /// Gaps that dropped at least 3 frames at once.
    public var slow: Int
    /// Gaps that dropped at least 7 frames at once.
    public var severe: Int
    /// Frozen frames: gaps of at least 700 ms.
    public var frozen: Int
    /// Duration of the longest frozen frame in the window, in milliseconds.
    public var durationMs: Double?
    /// Main-thread stack captured during the longest frozen frame, innermost first.
    public var stack: [Address]?
    /// Every frozen frame of the window, with its own duration and stack.
    public var frozenFrames: [FrozenFrame]?

    public init(page: String?, windowStart: Date, windowEnd: Date, frames: Int, fps: Double,
                refreshRate: Double, dropped: Int, slow: Int, severe: Int, frozen: Int,
                durationMs: Double? = nil, stack: [Address]? = nil, frozenFrames: [FrozenFrame]? = nil) {
        self.page = page
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.frames = frames
        self.fps = fps
        self.refreshRate = refreshRate
        self.dropped = dropped
        self.slow = slow
        self.severe = severe
        self.frozen = frozen
        self.durationMs = durationMs
        self.stack = stack
        self.frozenFrames = frozenFrames
    }
}

/// One frozen frame (a gap of at least 700 ms between two rendered frames).
public struct FrozenFrame: Codable, Sendable, Hashable {
    /// When the gap began (wall clock).
    public var start: Date
    /// Length of the gap in milliseconds.
    public var durationMs: Double
    /// The one main-thread stack captured during the freeze, innermost first.
    public var stack: [Address]?

    public init(start: Date, durationMs: Double, stack: [Address]? = nil) {
        self.start = start
        self.durationMs = durationMs
        self.stack = stack
    }
}
