import VigilCore

/// Identifies an issue: its project and fingerprint.
public struct IssueKey: Sendable, Hashable, Comparable {
    /// The owning project.
    public var projectID: Int64
    /// The grouping key (32 hex digits).
    public var fingerprint: String

    public static func < (lhs: IssueKey, rhs: IssueKey) -> Bool {
        (lhs.projectID, lhs.fingerprint) < (rhs.projectID, rhs.fingerprint)
    }
}

/// The analyses of one claimed batch folded into what the database needs: one delta per issue,
/// summed roll-ups and the missing symbols — so each issue and roll-up row is written once.
public struct ProcessingBatch: Sendable {
    /// One issue's share of the batch.
    public struct IssueDelta: Sendable {
        /// The latest observation (its title and stack become the issue's).
        public var observation: IssueObservation
        /// Events new to the issue (re-processed events are recounted instead).
        public var newEvents = 0
        /// First occurrence.
        public var firstSeen: Int64
        /// Latest occurrence.
        public var lastSeen: Int64
        /// The latest event's id.
        public var lastEventID: String
        /// Sessions of the new events.
        public var users = Set<String>()
        /// Per app version: new events, first and last seen.
        public var versions: [String: (count: Int, first: Int64, last: Int64)] = [:]
    }

    /// An image missing symbols and the events that needed it.
    public struct MissingSymbols: Sendable {
        /// Architecture, e.g. `arm64`.
        public var arch: String
        /// Display name.
        public var name: String
        /// Events counted.
        public var events = Set<String>()
    }

    /// Key of a missing image.
    public struct MissingKey: Sendable, Hashable {
        /// The owning project.
        public var projectID: Int64
        /// Mach-O UUID or ELF build id.
        public var debugID: String
    }

    /// Every event's analysis, in claim order.
    public private(set) var analyses: [EventAnalysis] = []
    /// One delta per issue touched.
    public private(set) var issues: [IssueKey: IssueDelta] = [:]
    /// Summed roll-up contributions.
    public private(set) var sums: [RollupKey: RollupSum] = [:]
    /// Merged roll-up histograms.
    public private(set) var histograms: [RollupKey: LogHistogram] = [:]
    /// Distinct-count sketch registers, each at the highest rank the batch gave it.
    public private(set) var sketches: [SketchRegisterKey: UInt8] = [:]
    /// Images that lacked symbols, with the events that needed them.
    public private(set) var missingSymbols: [MissingKey: MissingSymbols] = [:]
    /// Issues whose counts must be recomputed (re-processed events left them or joined them).
    public private(set) var issuesToRecount = Set<Int64>()

    /// Folds `analyses` together, keeping the roll-ups `rollups` keeps (all by default; see
    /// ``RollupScope``) — the others are dropped here, before any is hashed.
    public init(_ analyses: [EventAnalysis], rollups: RollupScope = .all) {
        self.analyses = analyses
        for analysis in analyses { add(analysis, rollups: rollups) }
    }

    private mutating func add(_ analysis: EventAnalysis, rollups: RollupScope) {
        let event = analysis.event
        for (key, sum) in analysis.sums where rollups.keeps(key.metric) {
            // One hash lookup per key: the default subscript modifies in place.
            sums[key, default: RollupSum()].add(sum)
        }
        for (key, value) in analysis.observations where rollups.keeps(key.metric) {
            histograms[key, default: LogHistogram()].add(value)
        }
        for (key, register, rank) in analysis.sketches where rollups.keeps(key.metric) {
            let registerKey = SketchRegisterKey(row: key, register: register)
            if rank > sketches[registerKey, default: 0] { sketches[registerKey] = rank }
        }
        for image in analysis.missingImages {
            let key = MissingKey(projectID: event.projectID, debugID: DebugIDSpelling.normalize(image.id))
            missingSymbols[key, default: MissingSymbols(arch: image.arch, name: image.name)].events.insert(event.id)
        }
        if let previous = event.issueID { issuesToRecount.insert(previous) }
        guard let observation = analysis.issue else { return }
        let key = IssueKey(projectID: event.projectID, fingerprint: observation.fingerprint.value)
        var delta = issues[key] ?? IssueDelta(observation: observation, firstSeen: event.occurredAt, lastSeen: event.occurredAt,
                                             lastEventID: event.id)
        if event.occurredAt >= delta.lastSeen {
            delta.observation = observation
            delta.lastSeen = event.occurredAt
            delta.lastEventID = event.id
        }
        delta.firstSeen = min(delta.firstSeen, event.occurredAt)
        if event.isReprocessing {
            // Its new issue is recounted from the events table after the update.
            issues[key] = delta
            return
        }
        delta.newEvents += 1
        delta.users.insert(event.sessionID)
        var version = delta.versions[event.appVersion] ?? (0, event.occurredAt, event.occurredAt)
        version.count += 1
        version.first = min(version.first, event.occurredAt)
        version.last = max(version.last, event.occurredAt)
        delta.versions[event.appVersion] = version
        issues[key] = delta
    }
}
