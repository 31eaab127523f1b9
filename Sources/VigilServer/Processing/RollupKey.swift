/// Where a roll-up value accumulates: a metric (`hang.duration`, `network.total`…), a
/// dimension (page, `METHOD urlTemplate`, launch kind…), the app version and the UTC day.
public struct RollupKey: Sendable, Hashable, Comparable {
    /// The owning project.
    public var projectID: Int64
    /// What is measured, e.g. `hang`, `network.total`.
    public var metric: String
    /// Page, request template, launch kind or span name.
    public var dimension: String
    /// Marketing version of the app.
    public var appVersion: String
    /// Days since 1970-01-01 (UTC).
    public var day: Int64

    /// Creates a key.
    public init(projectID: Int64, metric: String, dimension: String, appVersion: String, day: Int64) {
        self.projectID = projectID
        self.metric = metric
        self.dimension = dimension
        self.appVersion = appVersion
        self.day = day
    }

    public static func < (lhs: RollupKey, rhs: RollupKey) -> Bool {
        (lhs.projectID, lhs.metric, lhs.dimension, lhs.appVersion, lhs.day)
            < (rhs.projectID, rhs.metric, rhs.dimension, rhs.appVersion, rhs.day)
    }
}

/// A count and a total added to a roll-up row.
public struct RollupSum: Sendable, Hashable {
    /// How many observations.
    public var count: Int64
    /// Sum of the observed values.
    public var total: Double

    /// Creates a sum.
    public init(count: Int64 = 0, total: Double = 0) {
        self.count = count
        self.total = total
    }
}

extension RollupSum {
    /// Adds `other`'s count and total.
    public mutating func add(_ other: RollupSum) {
        count += other.count
        total += other.total
    }
}
