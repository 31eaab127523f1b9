/// A distribution drawn as a histogram on a log axis (what `GET /api/v1/distributions/:metric`
/// returns): the roll-up histogram of one metric, regrouped into ``LogBins``.
public struct DistributionReport: Sendable, Hashable, Codable {
    /// The roll-up metric: `hang.duration`, `launch.ttid`, `launch.ttfd`, `network.total` or
    /// `frames.frozen.duration`.
    public var metric: String
    /// The dimension kept (a page, launch kind or request template); nil for all of them.
    public var dimension: String?
    /// Observations.
    public var total: Int64
    /// Median, in ms.
    public var p50Ms: Double?
    /// 95th percentile, in ms.
    public var p95Ms: Double?
    /// 99th percentile, in ms.
    public var p99Ms: Double?
    /// Bins from the smallest value to the largest, in ms.
    public var bins: [LogBins.Bin]

    /// The metrics a distribution can be asked for.
    public static let metrics = ["hang.duration", "launch.ttid", "launch.ttfd", "network.total", "frames.frozen.duration"]
}
