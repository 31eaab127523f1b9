import Foundation
import VigilCore

/// The data behind the dashboard's pictures, narrowed by a ``DashboardFilter`` as the other
/// views are: from the roll-ups when they hold what the filter asks (time range in whole UTC
/// days, release, and the page for the metrics kept by page), from the events otherwise (OS
/// version, device model, a page on metrics not kept by page).
extension Insights {
    /// The histogram of `metric` (one of ``DistributionReport/metrics``) within `filter`, over
    /// every dimension or only `dimension` (a launch kind, a request template, a page).
    public func distribution(projectID: Int64, metric: String, dimension: String? = nil, filter: DashboardFilter,
                             now: Date) throws -> DistributionReport {
        let pageIsDimension = metric == "hang.duration" || metric == "frames.frozen.duration"
        var histogram = LogHistogram()
        let readsEvents = filter.needsRawEvents || (filter.page != nil && !pageIsDimension)
        let narrowed = readsEvents ? eventRollups(filter, now: now, pageIsDimension: pageIsDimension) : nil
        if readsEvents, narrowed == nil {
            histogram = try eventHistogram(projectID: projectID, metric: metric, dimension: dimension, filter: filter, now: now)
        } else {
            for row in try rollupSource.rollupDistributions(projectID: projectID, metric: metric,
                                                     filter: narrowed ?? RollupFilter(filter, now: now, pageIsDimension: pageIsDimension))
            where dimension == nil || row.dimension == dimension {
                histogram.merge(row.histogram)
            }
        }
        return DistributionReport(metric: metric, dimension: dimension, total: histogram.total, p50Ms: histogram.quantile(0.5),
                                  p95Ms: histogram.quantile(0.95), p99Ms: histogram.quantile(0.99), bins: LogBins(histogram).bins)
    }

    /// ``network(projectID:filter:now:)`` and the `network.total` ``distribution(projectID:metric:dimension:filter:now:)``
    /// together, reading the requests once: from the events (OS version, device model, page),
    /// the distribution is the templates' histograms merged; from the roll-ups, the
    /// `network.total` histogram rows are read once for both.
    public func networkWithLatency(projectID: Int64, filter: DashboardFilter,
                                   now: Date) throws -> (templates: [NetworkTemplateStat], latency: DistributionReport) {
        let templates: [NetworkTemplateStat]
        var histogram = LogHistogram()
        let narrowed = Self.readsEvents(filter) ? eventRollups(filter, now: now, pageIsDimension: false) : nil
        if Self.readsEvents(filter), narrowed == nil {
            let side = try EventAggregates(store: store).networkWithLatency(projectID: projectID, filter: filter, now: now, versions: nil)[""]
            templates = side?.templates ?? []
            histogram = side?.latency ?? LogHistogram()
        } else {
            let rollups = narrowed ?? RollupFilter(filter, now: now, pageIsDimension: false)
            let latency = try rollupSource.rollupDistributions(projectID: projectID, metric: "network.total", filter: rollups)
            for row in latency { histogram.merge(row.histogram) }
            templates = try network(projectID: projectID, filter: rollups, latency: latency)
        }
        return (templates, DistributionReport(metric: "network.total", dimension: nil, total: histogram.total,
                                                          p50Ms: histogram.quantile(0.5), p95Ms: histogram.quantile(0.95),
                                                          p99Ms: histogram.quantile(0.99), bins: LogBins(histogram).bins))
    }

    /// `metric`'s histogram read from the matching events (the same values processing observes).
    private func eventHistogram(projectID: Int64, metric: String, dimension: String?, filter: DashboardFilter,
                                now: Date) throws -> LogHistogram {
        let d = store.dialect
        let (type, value, group, extra): (String?, String, String, String)
        switch metric {
        case "hang.duration": (type, value, group, extra) = ("hang", "duration_ms", "COALESCE(page, '(no page)')", "")
        case "frames.frozen.duration":
            (type, value, group, extra) = ("frames", "duration_ms", "COALESCE(page, '(no page)')", " AND frames_frozen > 0")
        case "launch.ttid": (type, value, group, extra) = ("launch", "duration_ms", d.jsonValue("payload_json", ["kind"]), "")
        case "launch.ttfd": (type, value, group, extra) = ("launch", d.jsonNumber("payload_json", ["ttfdMs"]),
                                                           d.jsonValue("payload_json", ["kind"]), "")
        default:
            // Requests: their `request_facts` rows hold the template, no JSON to parse.
            (type, value, group, extra) = (nil, "duration_ms", "template", "")
        }
        let conditions = filter.eventConditions(now: now)
        let rows = try store.database.read { connection in
            if let type {
                return try connection.query("SELECT \(value) AS value, \(group) AS grouping FROM apm_event WHERE project_id = ? AND type = ?"
                                            + conditions.sql + extra, [.integer(projectID), .text(type)] + conditions.arguments)
            }
            return try connection.query("SELECT \(value) AS value, \(group) AS grouping FROM request_facts WHERE project_id = ?"
                                        + conditions.sql + extra, [.integer(projectID)] + conditions.arguments)
        }
        var histogram = LogHistogram()
        for row in rows where dimension == nil || row.string("grouping") == dimension {
            if let observed = row["value"].double { histogram.add(observed) }
        }
        return histogram
    }

    /// Each release's launch phases for launches of `kind` within `filter`, newest release
    /// first, and the task waterfall of a typical launch (of any kind) with task spans.
    public func launchWaterfall(projectID: Int64, kind: String = "cold", filter: DashboardFilter, now: Date) throws -> LaunchWaterfallReport {
        var marks: [String: [String: LogHistogram]] = [:]
        var counts: [String: Int64] = [:]
        let metrics = ["launch.main", "launch.didfinish", "launch.ttid", "launch.ttfd"]
        let narrowed = Self.readsEvents(filter) ? eventRollups(filter, now: now, pageIsDimension: false, byVersion: true) : nil
        if Self.readsEvents(filter), narrowed == nil {
            let d = store.dialect
            let columns = "app_version, duration_ms, \(d.jsonValue("payload_json", ["kind"])) AS kind, "
                + "\(d.jsonNumber("payload_json", ["preMainMs"])) AS premain, "
                + "\(d.jsonNumber("payload_json", ["mainToDidFinishMs"])) AS didfinish, \(d.jsonNumber("payload_json", ["ttfdMs"])) AS ttfd"
            let conditions = filter.eventConditions(now: now)
            let rows = try store.database.read { connection in
                try connection.query("SELECT \(columns) FROM apm_event WHERE project_id = ? AND type = 'launch'" + conditions.sql,
                                     [.integer(projectID)] + conditions.arguments)
            }
            for row in rows where row.string("kind") == kind {
                let version = row.string("app_version") ?? ""
                counts[version, default: 0] += 1
                let preMain = row["premain"].double
                // The same marks processing observes (EventAnalyzer): from the launch's origin.
                let values = [preMain, row["didfinish"].double.map { (preMain ?? 0) + $0 }, row["duration_ms"].double, row["ttfd"].double]
                for (metric, value) in zip(metrics, values) {
                    if let value { marks[version, default: [:]][metric, default: LogHistogram()].add(value) }
                }
            }
        } else {
            let rollups = narrowed ?? RollupFilter(filter, now: now, pageIsDimension: false, byVersion: true)
            for metric in metrics {
                for row in try rollupSource.rollupDistributions(projectID: projectID, metric: metric, filter: rollups) where row.dimension == kind {
                    marks[row.appVersion ?? "", default: [:]][metric, default: LogHistogram()].merge(row.histogram)
                }
            }
            for row in try rollupSource.rollupSums(projectID: projectID, metrics: ["launch"], filter: rollups) where row.dimension == kind {
                counts[row.appVersion ?? "", default: 0] += row.count
            }
        }
        let order = try rollupSource.appVersions(projectID: projectID)
        let releases = counts.map { version, count -> LaunchPhaseStat in
            let metrics = marks[version] ?? [:]
            return LaunchPhaseStat(version: version, launches: count, mainMs: metrics["launch.main"]?.quantile(0.5),
                                   didFinishMs: metrics["launch.didfinish"]?.quantile(0.5),
                                   firstFrameMs: metrics["launch.ttid"]?.quantile(0.5),
                                   fullyDrawnMs: metrics["launch.ttfd"]?.quantile(0.5))
        }.sorted { (order.firstIndex(of: $0.version) ?? Int.max, $0.version) < (order.firstIndex(of: $1.version) ?? Int.max, $1.version) }
        return LaunchWaterfallReport(kind: kind, releases: releases, typical: try typicalLaunch(projectID: projectID, filter: filter, now: now))
    }

    /// The launch with the median TTID among the most recent ones within `filter` whose payload
    /// carries task spans (ties by event id); nil when there is none.
    public func typicalLaunch(projectID: Int64, filter: DashboardFilter, now: Date) throws -> TypicalLaunch? {
        let samples = try store.eventSamples(projectID: projectID,
                                             query: EventSampleQuery(type: "launch", payloadContains: ["\"tasks\""],
                                                                     limit: LaunchWaterfallReport.candidateLimit),
                                             filter: filter, now: now)
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
