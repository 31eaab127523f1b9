/// Which roll-ups the main database keeps when it commits processed events.
///
/// Without an event table elsewhere every roll-up is kept: the dashboard reads them all. With
/// the events on ClickHouse (`--events`) the dashboard reads ClickHouse's roll-up views, and
/// upserting the same sums, histogram buckets and sketch registers into the main database as
/// well was most of its work per event. It then keeps only the roll-ups its own readers use
/// whatever the event store:
///
/// - release health (`release.*` sums, the `release.ttid` histogram, the user sketches): the
///   crash-free-users and hang-rate alert rules read them (``AlertEvaluator``);
/// - `events` counts by type: the project's highest app version, which resolving an issue
///   "in the next release" reads;
/// - `hang` and `frames.windows` counts per page: the page choices of the dashboard's filter
///   bar (``ServerStore/rollupDimensions(projectID:metrics:limit:)``).
///
/// Every other metric (requests and their phases, frames beyond the window counts, launches,
/// spans, crashes by kind, hang and frozen-frame durations) lives only in ClickHouse's views.
public enum RollupScope: Sendable, Hashable {
    /// Every roll-up (no event table elsewhere).
    case all
    /// Only the roll-ups the main database's own readers use (listed above).
    case readByMainDatabase

    /// Whether roll-up rows of `metric` are kept. Cost: a few short string comparisons.
    @inline(__always)
    func keeps(_ metric: String) -> Bool {
        switch self {
        case .all: return true
        case .readByMainDatabase:
            return metric.hasPrefix("release.") || metric == "events" || metric == "hang" || metric == "frames.windows"
        }
    }
}
