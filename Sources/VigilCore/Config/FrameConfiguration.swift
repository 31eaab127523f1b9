/// Settings of the ``FrameMonitor``, with the defaults Vigil ships. Durations are milliseconds.
public struct FrameConfiguration: Sendable, Hashable {
    /// A gap that dropped at least this many frames at once is `slow`. Default 3.
    public var slowDroppedFrames: Int = 3
    /// A gap that dropped at least this many frames at once is `severe`. Default 7.
    public var severeDroppedFrames: Int = 7
    /// A gap at least this long between two rendered frames is a frozen frame. Default 700 ms.
    public var frozenFrameMs: Double = 700
    /// FPS is only computed over windows at least this long. Default 1000 ms.
    public var minimumWindowMs: Double = 1000
    /// How often per-page statistics are closed into `frames` payloads. Default 60 s.
    public var reportIntervalMs: Double = 60_000
    /// Frozen frames kept (with their stacks) per page per report; more are counted only.
    /// Default 16.
    public var maxFrozenFramesPerReport: Int = 16
    /// Pages tracked per report; frames on further pages go to the last page slot's overflow
    /// counter. Default 32.
    public var maxPagesPerReport: Int = 32
    /// A gap longer than this is a discontinuity (display link stopped without telling us,
    /// process suspended), not a frozen frame. Default 60 s.
    public var maximumGapMs: Double = 60_000

    /// The defaults.
    public init() {}

    /// Every field forced into its valid range; NaN and infinities become the default.
    public func clamped() -> FrameConfiguration {
        let defaults = FrameConfiguration()
        var result = self
        result.slowDroppedFrames = min(max(slowDroppedFrames, 1), 10_000)
        result.severeDroppedFrames = min(max(severeDroppedFrames, result.slowDroppedFrames), 10_000)
        result.frozenFrameMs = Clamp.value(frozenFrameMs, 50...600_000, default: defaults.frozenFrameMs)
        result.minimumWindowMs = Clamp.value(minimumWindowMs, 1000...3_600_000, default: defaults.minimumWindowMs)
        result.reportIntervalMs = Clamp.value(reportIntervalMs, result.minimumWindowMs...86_400_000,
                                              default: max(defaults.reportIntervalMs, result.minimumWindowMs))
        result.maxFrozenFramesPerReport = min(max(maxFrozenFramesPerReport, 0), 512)
        result.maxPagesPerReport = min(max(maxPagesPerReport, 1), 1024)
        result.maximumGapMs = Clamp.value(maximumGapMs, result.frozenFrameMs...86_400_000,
                                          default: max(defaults.maximumGapMs, result.frozenFrameMs))
        return result
    }

    /// Problems with the current values, one per field.
    public func problems() -> [ConfigurationProblem] {
        var found: [ConfigurationProblem] = []
        func check(_ ok: Bool, _ field: String, _ value: Any, _ expected: String) {
            if !ok { found.append(ConfigurationProblem(field: "frames." + field, value: "\(value)", expected: expected)) }
        }
        check(slowDroppedFrames >= 1, "slowDroppedFrames", slowDroppedFrames, ">= 1")
        check(severeDroppedFrames >= slowDroppedFrames, "severeDroppedFrames", severeDroppedFrames,
              ">= slowDroppedFrames")
        check(frozenFrameMs.isFinite && frozenFrameMs >= 50, "frozenFrameMs", frozenFrameMs, ">= 50")
        check(minimumWindowMs.isFinite && minimumWindowMs >= 1000, "minimumWindowMs", minimumWindowMs, ">= 1000")
        check(reportIntervalMs.isFinite && reportIntervalMs >= minimumWindowMs, "reportIntervalMs",
              reportIntervalMs, ">= minimumWindowMs")
        check(maxFrozenFramesPerReport >= 0, "maxFrozenFramesPerReport", maxFrozenFramesPerReport, ">= 0")
        check(maxPagesPerReport >= 1, "maxPagesPerReport", maxPagesPerReport, ">= 1")
        check(maximumGapMs.isFinite && maximumGapMs >= frozenFrameMs, "maximumGapMs", maximumGapMs,
              ">= frozenFrameMs")
        return found
    }
}
