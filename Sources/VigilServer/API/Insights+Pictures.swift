import VigilCore

extension Insights {
    /// The histogram of `metric` (one of ``DistributionReport/metrics``), over every dimension
    /// or only `dimension`, from the roll-ups.
    public func distribution(projectID: Int64, metric: String, dimension: String? = nil,
                             filter: RollupFilter = RollupFilter()) throws -> DistributionReport {
        var histogram = LogHistogram()
        for row in try store.rollupDistributions(projectID: projectID, metric: metric, filter: filter)
        where dimension == nil || row.dimension == dimension {
            histogram.merge(row.histogram)
        }
        return DistributionReport(metric: metric, dimension: dimension, total: histogram.total, p50Ms: histogram.quantile(0.5),
                                  p95Ms: histogram.quantile(0.95), p99Ms: histogram.quantile(0.99), bins: LogBins(histogram).bins)
    }

    /// Each release's launch phases for launches of `kind`, newest release first, and the task
    /// waterfall of a typical launch (of any kind) with task spans.
    public func launchWaterfall(projectID: Int64, kind: String = "cold", filter: RollupFilter = RollupFilter()) throws -> LaunchWaterfallReport {
        var grouped = filter
        grouped.byVersion = true
        grouped.byDay = false
        var marks: [String: [String: LogHistogram]] = [:]
        for metric in ["launch.main", "launch.didfinish", "launch.ttid", "launch.ttfd"] {
            for row in try store.rollupDistributions(projectID: projectID, metric: metric, filter: grouped) where row.dimension == kind {
                marks[row.appVersion ?? "", default: [:]][metric, default: LogHistogram()].merge(row.histogram)
            }
        }
        let counts = try store.rollupSums(projectID: projectID, metrics: ["launch"], filter: grouped).filter { $0.dimension == kind }
        let order = try store.appVersions(projectID: projectID)
        let releases = counts.map { row -> LaunchPhaseStat in
            let version = row.appVersion ?? ""
            let metrics = marks[version] ?? [:]
            return LaunchPhaseStat(version: version, launches: row.count, mainMs: metrics["launch.main"]?.quantile(0.5),
                                   didFinishMs: metrics["launch.didfinish"]?.quantile(0.5),
                                   firstFrameMs: metrics["launch.ttid"]?.quantile(0.5),
                                   fullyDrawnMs: metrics["launch.ttfd"]?.quantile(0.5))
        }.sorted { (order.firstIndex(of: $0.version) ?? Int.max, $0.version) < (order.firstIndex(of: $1.version) ?? Int.max, $1.version) }
        return LaunchWaterfallReport(kind: kind, releases: releases, typical: try typicalLaunch(projectID: projectID, filter: filter))
    }

    /// The launch with the median TTID among the most recent ones whose payload carries task
    /// spans (ties by event id); nil when there is none.
    public func typicalLaunch(projectID: Int64, filter: RollupFilter = RollupFilter()) throws -> TypicalLaunch? {
        let samples = try store.eventSamples(projectID: projectID,
                                             query: EventSampleQuery(type: "launch", payloadContains: "\"tasks\"",
                                                                     limit: LaunchWaterfallReport.candidateLimit),
                                             filter: filter)
        var candidates: [(sample: EventSample, launch: LaunchPayload)] = []
        for sample in samples {
            guard case .launch(let launch)? = EventAnalyzer.decodePayload(.launch, sample.payloadJSON),
                  let tasks = launch.tasks, !tasks.isEmpty else { continue }
            candidates.append((sample, launch))
        }
        guard !candidates.isEmpty else { return nil }
        candidates.sort { ($0.launch.ttidMs ?? .infinity, $0.sample.id) < ($1.launch.ttidMs ?? .infinity, $1.sample.id) }
        let median = candidates[(candidates.count - 1) / 2]
        return TypicalLaunch(eventID: median.sample.id, version: median.sample.appVersion, kind: median.launch.kind.rawValue,
                             ttidMs: median.launch.ttidMs, candidates: candidates.count,
                             timeline: LaunchTaskTimeline(spans: median.launch.tasks ?? []))
    }
}
