/// Settings of the ``LaunchTimeline``, with the defaults Vigil ships.
public struct LaunchConfiguration: Sendable, Hashable {
    /// Launches whose time to initial display exceeds this are dropped as implausible (a
    /// process started long before the user asked for it, a debugger pause). Default 180 s.
    public var maximumLaunchMs: Double = 180_000
    /// A new process started within this many seconds of the previous launch, with no reboot in
    /// between, counts as `warm` (its pages are likely still cached) when the runtime cannot
    /// tell directly. Default 600 s.
    public var warmLaunchWindowSeconds: Double = 600

    /// The defaults.
    public init() {}

    /// Every field forced into its valid range.
    public func clamped() -> LaunchConfiguration {
        var result = self
        result.maximumLaunchMs = Clamp.value(maximumLaunchMs, 1000...86_400_000, default: 180_000)
        result.warmLaunchWindowSeconds = Clamp.value(warmLaunchWindowSeconds, 0...31_536_000, default: 600)
        return result
    }

    /// Problems with the current values, one per field.
    public func problems() -> [ConfigurationProblem] {
        var found: [ConfigurationProblem] = []
        if !(maximumLaunchMs.isFinite && maximumLaunchMs >= 1000) {
            found.append(ConfigurationProblem(field: "launch.maximumLaunchMs", value: "\(maximumLaunchMs)",
                                              expected: ">= 1000"))
        }
        if !(warmLaunchWindowSeconds.isFinite && warmLaunchWindowSeconds >= 0) {
            found.append(ConfigurationProblem(field: "launch.warmLaunchWindowSeconds",
                                              value: "\(warmLaunchWindowSeconds)", expected: ">= 0"))
        }
        return found
    }
}
