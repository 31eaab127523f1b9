/// Running frame statistics of one page between two reports.
struct PageFrameTally: Sendable {
    var page: String?
    var firstFrame: MonotonicInstant
    var lastFrame: MonotonicInstant
    /// Frames rendered, including the first frame of each uninterrupted sequence.
    var frames = 0
    /// Frame-to-frame intervals measured (frames minus sequence starts).
    var intervals = 0
    /// Sum of the measured intervals, in milliseconds.
    var activeMs: Double = 0
    var dropped = 0
    var slow = 0
    var severe = 0
    var frozen = 0
    var frozenFrames: [FrozenFrame] = []
    var refreshRate: Double = 0

    init(page: String?, at instant: MonotonicInstant) {
        self.page = page
        self.firstFrame = instant
        self.lastFrame = instant
    }
}
