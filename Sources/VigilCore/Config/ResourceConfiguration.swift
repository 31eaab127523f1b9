import Foundation

/// Settings of the ``ResourceWatch``, with the defaults Vigil ships. Durations are milliseconds.
public struct ResourceConfiguration: Sendable, Hashable {
    /// How often the runtime should feed a sample. Default 5000 ms. The watch itself works with
    /// whatever spacing the samples have; this is the cadence the runtime schedules.
    public var sampleIntervalMs: Double = 5000
    /// Length of the window whose average CPU is compared with ``cpuBlockThresholdPercent``.
    /// Default 60 s.
    public var cpuBlockWindowMs: Double = 60_000
    /// Average CPU (percent of one core) above which a window is a CPU block. Default 80
    /// (Matrix's figure).
    public var cpuBlockThresholdPercent: Double = 80
    /// Busiest threads listed per payload. Default 5.
    public var topThreadCount: Int = 5
    /// Cores the process may run on; CPU time growing faster than this many cores allow is an
    /// absurd reading and is skipped. Default: the active processor count.
    public var processorCount: Int = ProcessInfo.processInfo.activeProcessorCount

    /// The defaults.
    public init() {}

    /// Every field forced into its valid range.
    public func clamped() -> ResourceConfiguration {
        let defaults = ResourceConfiguration()
        var result = self
        result.sampleIntervalMs = Clamp.value(sampleIntervalMs, 100...3_600_000, default: defaults.sampleIntervalMs)
        result.cpuBlockWindowMs = Clamp.value(cpuBlockWindowMs, result.sampleIntervalMs...86_400_000,
                                              default: max(defaults.cpuBlockWindowMs, result.sampleIntervalMs))
        result.cpuBlockThresholdPercent = Clamp.value(cpuBlockThresholdPercent, 1...100_000,
                                                      default: defaults.cpuBlockThresholdPercent)
        result.topThreadCount = min(max(topThreadCount, 0), 256)
        result.processorCount = min(max(processorCount, 1), 4096)
        return result
    }

    /// Problems with the current values, one per field.
    public func problems() -> [ConfigurationProblem] {
        var found: [ConfigurationProblem] = []
        func check(_ ok: Bool, _ field: String, _ value: Any, _ expected: String) {
            if !ok { found.append(ConfigurationProblem(field: "resource." + field, value: "\(value)", expected: expected)) }
        }
        check(sampleIntervalMs.isFinite && sampleIntervalMs >= 100, "sampleIntervalMs", sampleIntervalMs, ">= 100")
        check(cpuBlockWindowMs.isFinite && cpuBlockWindowMs >= sampleIntervalMs, "cpuBlockWindowMs",
              cpuBlockWindowMs, ">= sampleIntervalMs")
        check(cpuBlockThresholdPercent.isFinite && cpuBlockThresholdPercent >= 1, "cpuBlockThresholdPercent",
              cpuBlockThresholdPercent, ">= 1")
        check(topThreadCount >= 0, "topThreadCount", topThreadCount, ">= 0")
        check(processorCount >= 1, "processorCount", processorCount, ">= 1")
        return found
    }
}
