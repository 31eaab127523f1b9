import Foundation

/// The picture sections several pages share: a flame graph with its caption, a distribution
/// with its caption, the launch waterfalls.
enum DashboardPictures {
    /// A flame graph of `report` with what it was built from.
    static func flame(_ report: FlameGraphReport, title: String, what: String) -> String {
        var html = HTML()
        html.raw("<h2>")
        html.text(title)
        html.raw("</h2><p class=\"muted flame-caption\">")
        html.text("\(report.samples) sample\(report.samples == 1 ? "" : "s") from \(report.eventsWithStacks) \(what)")
        if report.events >= FlameGraphReport.eventLimit { html.text(" (the \(FlameGraphReport.eventLimit) most recent events)") }
        html.text("; frames under \(SVGChart.format(report.minimumFraction * 100))% of the samples and deeper than "
                  + "\(report.maximumDepth) levels are left out.")
        if report.truncated { html.text(" Some stacks were cut short (too many distinct frames).") }
        html.raw("</p>")
        html.raw(SVGChart.flameGraph(report.root, title: title))
        return html.output
    }

    /// A histogram of `report` under `title`, with its percentiles in words.
    static func distribution(_ report: DistributionReport, title: String) -> String {
        var html = HTML()
        html.raw("<h2>")
        html.text(title)
        html.raw("</h2>")
        if report.total > 0 {
            html.raw("<p class=\"muted\">\(report.total) observations · p50 \(DashboardPage.ms(report.p50Ms)) · "
                     + "p95 \(DashboardPage.ms(report.p95Ms)) · p99 \(DashboardPage.ms(report.p99Ms))</p>")
        }
        html.raw(SVGChart.histogram(report, title: title))
        return html.output
    }

    static let phaseColors = ["#9c755f", "#4e79a7", "#59a14f", "#76b7b2"]

    /// Each release's launch phases as one waterfall row.
    static func phases(_ report: LaunchWaterfallReport) -> String {
        let names = ["pre-main", "main → didFinishLaunching", "→ first frame", "→ fully drawn"]
        let rows = report.releases.prefix(12).map { release in
            SVGChart.TimelineRow(label: release.version, bars: release.phases.map { phase in
                let color = phaseColors[names.firstIndex(of: phase.name) ?? 0]
                return SVGChart.TimelineBar(name: phase.name, start: phase.startMs, end: phase.endMs, color: color,
                                            detail: "\(release.version) \(phase.name): median mark at \(SVGChart.format(phase.endMs)) ms")
            }, caption: "\(release.launches) launches")
        }
        return SVGChart.timeline(Array(rows), title: "Launch phases per release (\(report.kind))", unit: "ms",
                                 legend: Array(zip(names, phaseColors)))
    }

    /// The typical launch's tasks, one row per thread, the critical path outlined.
    static func tasks(_ typical: TypicalLaunch) -> String {
        let timeline = typical.timeline
        let rows = timeline.workers.map { worker in
            SVGChart.TimelineRow(label: worker, bars: timeline.tasks.filter { $0.worker == worker }.flatMap { task in
                var bars: [SVGChart.TimelineBar] = []
                if let ready = task.readyMs, ready < task.startMs {
                    bars.append(SVGChart.TimelineBar(name: "", start: ready, end: task.startMs, color: "#4e79a7",
                                                     detail: "\(task.id) waiting \(SVGChart.format(task.startMs - ready)) ms", faint: true))
                }
                let color = task.outcome == "succeeded" ? (task.phase == "beforeFirstFrame" ? "#4e79a7" : "#76b7b2") : "#e15759"
                bars.append(SVGChart.TimelineBar(name: task.id, start: task.startMs, end: task.endMs, color: color, emphasized: task.critical,
                                                 detail: "\(task.id): \(SVGChart.format(task.runMs)) ms on \(task.worker) (\(task.lane), "
                                                     + "\(task.phase), \(task.outcome))\(task.critical ? ", on the critical path" : "")"))
                return bars
            })
        }
        return SVGChart.timeline(rows, title: "Launch tasks by thread", unit: "ms",
                                 legend: [("before first frame", "#4e79a7"), ("after first frame / idle", "#76b7b2"),
                                          ("failed, timed out, skipped", "#e15759")])
    }
}
