import Foundation

/// Settings of the ``HangDetector``, with the defaults Vigil ships.
///
/// Durations are milliseconds. Values outside their documented range are reported by
/// ``VigilConfiguration/validate()`` and clamped by ``clamped()``, which is what the detector
/// applies, so a bad remote value degrades to the nearest sane one instead of trapping.
public struct HangConfiguration: Sendable, Hashable {
    /// Smallest accepted hang threshold.
    public static let minimumThresholdMs: Double = 100

    /// A busy run-loop turn longer than this is a hang. Default 2000 ms, at least 100 ms, and
    /// below ``fatalThresholdMs``.
    public var thresholdMs: Double = 2000
    /// A hang at least this long is `fatal`-class (the OS watchdog would likely kill the app).
    /// Default 8000 ms.
    public var fatalThresholdMs: Double = 8000
    /// How far into a busy turn the detector starts asking for main-thread stack samples;
    /// nil means a quarter of the threshold in force.
    public var samplingStartMs: Double? = nil
    /// Time between two main-thread samples while a turn is busy. Default 50 ms; the detector
    /// doubles it each time the sample ring fills (see ``sampleRingCapacity``), up to an hour.
    public var sampleIntervalMs: Double = 50
    /// Samples kept for one hang. Default 256 (12.8 s at 50 ms). When full, every other sample
    /// is dropped and the interval doubles, so the kept samples still cover the whole hang
    /// evenly and their counts stay proportional to time.
    public var sampleRingCapacity: Int = 256
    /// Frames kept per sample; deeper stacks lose their outermost frames (counted).
    public var maxFramesPerSample: Int = 256
    /// Threshold used while lowered by ``HangDetector/lowerThreshold(until:at:)``; nil means
    /// half the configured threshold (never below 100 ms).
    public var loweredThresholdMs: Double? = nil
    /// Turns at least this long that end at BeforeWaiting or Exit are counted as slow turns
    /// (no stacks). Default 250 ms.
    public var slowTurnMs: Double = 250
    /// The annealing period: a repeated hang with the same hot stack is suppressed unless the
    /// main thread stayed hang-free for 1, 2, 3, 5, then 8 periods. Default 1000 ms.
    public var annealingPeriodMs: Double = 1000
    /// Hang reports per top frame (innermost frame of the hot stack) per calendar day.
    /// Default 10; 0 disables hang reports.
    public var dailyCapPerTopFrame: Int = 10
    /// Time zone whose midnight starts a new day for ``dailyCapPerTopFrame``. Default UTC, so
    /// the cap does not depend on where the device is.
    // Not `TimeZone.gmt`: that needs iOS 16, and the package supports iOS 15.
    public var dailyCapTimeZone: TimeZone = TimeZone(identifier: "UTC")
        ?? TimeZone(secondsFromGMT: 0) ?? TimeZone.current
    /// A watchdog tick that arrives this much later than scheduled means the process was
    /// suspended (or starved), not hung: the measurement of the current turn restarts.
    /// Default 1000 ms.
    public var suspensionToleranceMs: Double = 1000
    /// While a hang lasts, its "in progress" marker is refreshed at most this often.
    /// Default 1000 ms.
    public var markerRefreshIntervalMs: Double = 1000
    /// With frame timing fed in: a hang during which frames were rendered is reported as
    /// `nonFullyBlocking` only if frames were late for at least this share of it (Sentry's 95%);
    /// below that the main thread was responsive and no hang is reported. Default 0.95.
    public var nonFullyBlockingDelayedShare: Double = 0.95
    /// A frame is a "hot stack" frame when more than this share of the samples pass through
    /// it. Default 0.5 (a strict majority).
    public var hotStackShare: Double = 0.5

    /// The defaults.
    public init() {}

    /// Sampling start in force for `thresholdMs`.
    public func samplingStart(forThresholdMs threshold: Double) -> Double {
        min(samplingStartMs ?? threshold / 4, threshold)
    }

    /// The lowered threshold in force for a configured `thresholdMs`.
    public var effectiveLoweredThresholdMs: Double {
        let lowered = loweredThresholdMs ?? thresholdMs / 2
        return min(max(lowered, Self.minimumThresholdMs), thresholdMs)
    }

    /// Every field forced into its valid range; NaN and infinities become the default.
    public func clamped() -> HangConfiguration {
        let defaults = HangConfiguration()
        var result = self
        result.fatalThresholdMs = Clamp.value(fatalThresholdMs, 200...3_600_000, default: defaults.fatalThresholdMs)
        result.thresholdMs = Clamp.value(thresholdMs, Self.minimumThresholdMs...(result.fatalThresholdMs - 1),
                                         default: min(defaults.thresholdMs, result.fatalThresholdMs - 1))
        if let start = samplingStartMs {
            result.samplingStartMs = start.isFinite ? min(max(start, 0), result.thresholdMs) : nil
        }
        result.sampleIntervalMs = Clamp.value(sampleIntervalMs, 1...10_000, default: defaults.sampleIntervalMs)
        result.sampleRingCapacity = min(max(sampleRingCapacity, 2), 1 << 16)
        result.maxFramesPerSample = min(max(maxFramesPerSample, 1), 4096)
        if let lowered = loweredThresholdMs {
            result.loweredThresholdMs = lowered.isFinite
                ? min(max(lowered, Self.minimumThresholdMs), result.thresholdMs) : nil
        }
        result.slowTurnMs = Clamp.value(slowTurnMs, 1...3_600_000, default: defaults.slowTurnMs)
        result.annealingPeriodMs = Clamp.value(annealingPeriodMs, 1...3_600_000, default: defaults.annealingPeriodMs)
        result.dailyCapPerTopFrame = max(0, dailyCapPerTopFrame)
        result.suspensionToleranceMs = Clamp.value(suspensionToleranceMs, 10...3_600_000,
                                                   default: defaults.suspensionToleranceMs)
        result.markerRefreshIntervalMs = Clamp.value(markerRefreshIntervalMs, 10...3_600_000,
                                                     default: defaults.markerRefreshIntervalMs)
        result.nonFullyBlockingDelayedShare = Clamp.value(nonFullyBlockingDelayedShare, 0...1,
                                                          default: defaults.nonFullyBlockingDelayedShare)
        result.hotStackShare = Clamp.value(hotStackShare, 0...0.99, default: defaults.hotStackShare)
        return result
    }

    /// Problems with the current values, one per field, empty when every field is in range.
    public func problems() -> [ConfigurationProblem] {
        var found: [ConfigurationProblem] = []
        func check(_ ok: Bool, _ field: String, _ value: Any, _ expected: String) {
            if !ok { found.append(ConfigurationProblem(field: "hang." + field, value: "\(value)", expected: expected)) }
        }
        check(fatalThresholdMs.isFinite && fatalThresholdMs >= 200, "fatalThresholdMs", fatalThresholdMs, ">= 200")
        check(thresholdMs.isFinite && thresholdMs >= Self.minimumThresholdMs && thresholdMs < fatalThresholdMs,
              "thresholdMs", thresholdMs, ">= 100 and below fatalThresholdMs")
        if let start = samplingStartMs {
            check(start.isFinite && start >= 0 && start <= thresholdMs, "samplingStartMs", start, "0 ... thresholdMs")
        }
        check(sampleIntervalMs.isFinite && sampleIntervalMs >= 1, "sampleIntervalMs", sampleIntervalMs, ">= 1")
        check(sampleRingCapacity >= 2, "sampleRingCapacity", sampleRingCapacity, ">= 2")
        check(maxFramesPerSample >= 1, "maxFramesPerSample", maxFramesPerSample, ">= 1")
        if let lowered = loweredThresholdMs {
            check(lowered.isFinite && lowered >= Self.minimumThresholdMs && lowered <= thresholdMs,
                  "loweredThresholdMs", lowered, "100 ... thresholdMs")
        }
        check(slowTurnMs.isFinite && slowTurnMs >= 1, "slowTurnMs", slowTurnMs, ">= 1")
        check(annealingPeriodMs.isFinite && annealingPeriodMs >= 1, "annealingPeriodMs", annealingPeriodMs, ">= 1")
        check(dailyCapPerTopFrame >= 0, "dailyCapPerTopFrame", dailyCapPerTopFrame, ">= 0")
        check(suspensionToleranceMs.isFinite && suspensionToleranceMs >= 10, "suspensionToleranceMs",
              suspensionToleranceMs, ">= 10")
        check(markerRefreshIntervalMs.isFinite && markerRefreshIntervalMs >= 10, "markerRefreshIntervalMs",
              markerRefreshIntervalMs, ">= 10")
        check((0...1).contains(nonFullyBlockingDelayedShare), "nonFullyBlockingDelayedShare",
              nonFullyBlockingDelayedShare, "0 ... 1")
        check(hotStackShare >= 0 && hotStackShare < 1, "hotStackShare", hotStackShare, "0 ..< 1")
        return found
    }
}
