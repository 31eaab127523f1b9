/// A flame graph's data: the sampled stacks of a set of events merged into one symbolicated
/// call tree (what `GET /api/v1/flamegraph` returns and the dashboard draws).
public struct FlameGraphReport: Sendable, Hashable, Codable {
    /// `hangs` (hang events' sampled main-thread stacks, weighted by their sample counts) or
    /// `frozen` (frozen frames' main-thread stacks, one sample each).
    public var source: String
    /// Events read (the most recent ones, at most ``FlameGraphReport/eventLimit``).
    public var events: Int
    /// Events that contributed at least one stack.
    public var eventsWithStacks: Int
    /// Samples merged: the root's width.
    public var samples: Int64
    /// Distinct stacks merged (per event).
    public var stacks: Int
    /// Nodes narrower than this fraction of all samples are left out of ``root`` (and the picture).
    public var minimumFraction: Double
    /// Levels below the root kept in ``root``.
    public var maximumDepth: Int
    /// Whether the tree reached its node cap and some stacks were cut short.
    public var truncated: Bool
    /// The merged tree, pruned by ``minimumFraction`` and ``maximumDepth``.
    public var root: FlameNode

    /// The most events one flame graph reads.
    public static let eventLimit = 500
}
