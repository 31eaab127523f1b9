import Foundation
import VigilCore

/// `/hangs`, `/network`, `/launch`, `/frames`: the roll-up views with their charts.
enum MetricPages {
    /// A link to `path` narrowed to the app page `name`, the rest of the filter kept.
    static func pageLink(_ page: DashboardPage, _ path: String, _ name: String) -> String {
        var filter = page.filter
        filter.page = name
        return page.link(path, filter: filter)
    }

    /// A page's table (`table`), its `metric` distribution and its flame graph (`stacks`):
    /// three independent reads, run at once (``ConcurrentRead``).
    private static func tableAndPictures<Table: Sendable>(
        _ page: DashboardPage, metric: String,
        table: @escaping @Sendable (Insights, Int64, DashboardFilter, Date) throws -> Table,
        stacks: @escaping @Sendable (StackProfiler, Int64, DashboardFilter, Date) throws -> FlameGraphReport
    ) throws -> (Table, DistributionReport, FlameGraphReport) {
        let (context, projectID, filter, now) = (page.context, page.project.id, page.filter, page.now)
        let tableRead = ConcurrentRead { try table(context.insights, projectID, filter, now) }
        let durationsRead = ConcurrentRead { try context.insights.distribution(projectID: projectID, metric: metric, filter: filter, now: now) }
        let stacksRead = ConcurrentRead { try stacks(context.stackProfiler, projectID, filter, now) }
        [tableRead, durationsRead, stacksRead].runAtOnce()
        return (try tableRead.value(), try durationsRead.value(), try stacksRead.value())
    }

    static func hangs(_ page: DashboardPage) throws -> HTTPResponse {
        let (pages, durations, stacks) = try tableAndPictures(page, metric: "hang.duration",
                                                              table: { try $0.hangs(projectID: $1, filter: $2, now: $3) },
                                                              stacks: { try $0.hangs(projectID: $1, filter: $2, now: $3) })
        var html = HTML()
        html.raw("<h2>Total hang time by page</h2>")
        html.raw(SVGChart.bars(pages.prefix(20).map { SVGChart.Bar(label: $0.page, value: $0.totalMs / 1000,
                                                                   caption: String(format: "%.1f s in %d hangs", $0.totalMs / 1000, $0.hangs)) },
                               title: "Hang time by page", color: "#f28e2b"))
        html.raw("<table><thead><tr><th>Page</th><th class=\"num\">Hangs</th><th class=\"num\">Total</th><th class=\"num\">p50</th>"
                 + "<th class=\"num\">p95</th></tr></thead><tbody>")
        for stat in pages {
            html.raw("<tr><td><a href=\"\(pageLink(page, "/hangs", stat.page))\">")
            html.text(stat.page)
            html.raw("</a></td><td class=\"num\">\(stat.hangs)</td><td class=\"num\">\(DashboardPage.ms(stat.totalMs))</td>"
                     + "<td class=\"num\">\(DashboardPage.ms(stat.p50Ms))</td><td class=\"num\">\(DashboardPage.ms(stat.p95Ms))</td></tr>")
        }
        html.raw("</tbody></table><p><a href=\"\(page.link("/issues", [("kind", "hang")]))\">Hang issues and their stacks →</a></p>")
        let focus = page.filter.page.map { " on \($0)" } ?? " (every page; pick one in the table to narrow)"
        html.raw(DashboardPictures.distribution(durations, title: "Hang durations" + focus))
        html.raw(DashboardPictures.flame(stacks,
                                         title: "Where the main thread was during hangs" + focus, what: "hang events"))
        return try page.render(title: "Hangs by page", active: "/hangs", body: html.output)
    }

    static func network(_ page: DashboardPage) throws -> HTTPResponse {
        let (templates, latency) = try page.context.insights.networkWithLatency(projectID: page.project.id, filter: page.filter, now: page.now)
        var html = HTML()
        html.raw("<h2>Where the time goes (mean per phase), slowest p95 first</h2>")
        html.raw(SVGChart.stacked(templates.prefix(20).map { stat in
            SVGChart.Stack(label: stat.template, segments: [("DNS", stat.phases.dns ?? 0), ("TCP", stat.phases.connect ?? 0),
                                                            ("TLS", stat.phases.tls ?? 0), ("request", stat.phases.request ?? 0),
                                                            ("TTFB", stat.phases.ttfb ?? 0), ("response", stat.phases.response ?? 0)])
        }, title: "Request phases", unit: "ms"))
        html.raw("<table><thead><tr><th>Request</th><th class=\"num\">Count</th><th class=\"num\">Errors</th><th class=\"num\">p50</th>"
                 + "<th class=\"num\">p95</th><th class=\"num\">p99</th><th class=\"num\">DNS</th><th class=\"num\">TCP</th>"
                 + "<th class=\"num\">TLS</th><th class=\"num\">TTFB</th></tr></thead><tbody>")
        for stat in templates {
            html.raw("<tr><td><a href=\"\(page.link("/network/breakdown", [("template", stat.template)]))\">")
            html.text(stat.template)
            html.raw("</a></td><td class=\"num\">\(stat.requests)</td><td class=\"num\">\(stat.errors)</td>"
                     + "<td class=\"num\">\(DashboardPage.ms(stat.p50Ms))</td><td class=\"num\">\(DashboardPage.ms(stat.p95Ms))</td>"
                     + "<td class=\"num\">\(DashboardPage.ms(stat.p99Ms))</td><td class=\"num\">\(DashboardPage.ms(stat.phases.dns))</td>"
                     + "<td class=\"num\">\(DashboardPage.ms(stat.phases.connect))</td><td class=\"num\">\(DashboardPage.ms(stat.phases.tls))</td>"
                     + "<td class=\"num\">\(DashboardPage.ms(stat.phases.ttfb))</td></tr>")
        }
        html.raw("</tbody></table><p><a href=\"\(page.link("/network/breakdown"))\">By app version and network type →</a></p>")
        html.raw(DashboardPictures.distribution(latency, title: "Request latency, all requests"))
        return try page.render(title: "Slow requests", active: "/network", body: html.output)
    }

    static func launch(_ page: DashboardPage) throws -> HTTPResponse {
        // The table and trend, the phase waterfall and the TTID distribution are independent reads.
        let (context, projectID, filter, now) = (page.context, page.project.id, page.filter, page.now)
        let kind = page.request.query["kind"].flatMap { LaunchKind(rawValue: $0)?.rawValue } ?? "cold"
        let statsRead = ConcurrentRead { try context.insights.launches(projectID: projectID, filter: filter, now: now) }
        let waterfallRead = ConcurrentRead { try context.insights.launchWaterfall(projectID: projectID, kind: kind, filter: filter, now: now) }
        let durationsRead = ConcurrentRead {
            try context.insights.distribution(projectID: projectID, metric: "launch.ttid", dimension: kind, filter: filter, now: now)
        }
        [statsRead, waterfallRead, durationsRead].runAtOnce()
        let (stats, trend) = try statsRead.value()
        var html = HTML()
        html.raw("<h2>Cold launch TTID p50 per day</h2>")
        let days = Array(Set(trend.map(\.day))).sorted()
        let versions = Array(Set(trend.map(\.version))).sorted()
        html.raw(SVGChart.lines(versions.map { version in
            SVGChart.Series(name: version, points: trend.filter { $0.version == version }.compactMap { point in
                point.ttidP50Ms.flatMap { value in days.firstIndex(of: point.day).map { ($0, value) } }
            })
        }, xLabels: days.map { String($0.dropFirst(5)) }, title: "Cold launch TTID", unit: "ms"))
        html.raw("<h2>By version and kind</h2><table><thead><tr><th>Version</th><th>Kind</th><th class=\"num\">Launches</th>"
                 + "<th class=\"num\">TTID p50</th><th class=\"num\">TTID p90</th><th class=\"num\">TTFD p50</th><th class=\"num\">TTFD p90</th>"
                 + "</tr></thead><tbody>")
        for stat in stats {
            html.raw("<tr><td>")
            html.text(stat.version)
            html.raw("</td><td>")
            html.text(stat.kind)
            html.raw("</td><td class=\"num\">\(stat.launches)</td><td class=\"num\">\(DashboardPage.ms(stat.ttidP50Ms))</td>"
                     + "<td class=\"num\">\(DashboardPage.ms(stat.ttidP90Ms))</td><td class=\"num\">\(DashboardPage.ms(stat.ttfdP50Ms))</td>"
                     + "<td class=\"num\">\(DashboardPage.ms(stat.ttfdP90Ms))</td></tr>")
        }
        html.raw("</tbody></table><p class=\"muted\">Prewarmed launches are their own kind and stay out of cold statistics.</p>")
        let waterfall = try waterfallRead.value()
        html.raw("<h2>Launch phases per release (\(kind))</h2><p class=\"muted\">Each bar ends at the median time from the launch's "
                 + "start to that mark; the marks' medians are taken one by one, so a bar's length is not the median of its phase.</p>")
        html.raw(DashboardPictures.phases(waterfall))
        html.raw(DashboardPictures.distribution(try durationsRead.value(), title: "Time to initial display (\(kind))"))
        html.raw("<h2>Tasks of a typical launch</h2>")
        if let typical = waterfall.typical {
            html.raw("<p class=\"muted typical-launch\">")
            html.text("The launch with the median TTID (\(DashboardPage.ms(typical.ttidMs))) among the \(typical.candidates) most recent "
                      + "with task spans: version \(typical.version), \(typical.kind). Critical path (outlined in red): "
                      + typical.timeline.criticalPath.joined(separator: " → ")
                      + " (\(SVGChart.format(typical.timeline.criticalPathMs)) ms).")
            html.raw("</p>")
            html.raw(DashboardPictures.tasks(typical))
        } else {
            html.raw("<p class=\"empty\">No launch in this range carried task spans (a <code>VigilLaunch</code> task graph records them).</p>")
        }
        return try page.render(title: "Launch time by version", active: "/launch", body: html.output)
    }

    static func frames(_ page: DashboardPage) throws -> HTTPResponse {
        let (pages, durations, stacks) = try tableAndPictures(page, metric: "frames.frozen.duration",
                                                              table: { try $0.frames(projectID: $1, filter: $2, now: $3) },
                                                              stacks: { try $0.frozenFrames(projectID: $1, filter: $2, now: $3) })
        var html = HTML()
        html.raw("<h2>Slow frames per rendered frame</h2>")
        html.raw(SVGChart.bars(pages.prefix(20).map { SVGChart.Bar(label: $0.page, value: $0.slowRatio,
                                                                   caption: "\(DashboardPage.percent($0.slowRatio)) slow, \($0.frozen) frozen") },
                               title: "Slow frame ratio by page", color: "#e15759"))
        html.raw("<table><thead><tr><th>Page</th><th class=\"num\">Frames</th><th class=\"num\">Dropped</th><th class=\"num\">Slow</th>"
                 + "<th class=\"num\">Severe</th><th class=\"num\">Frozen</th><th class=\"num\">Slow ratio</th><th class=\"num\">Frozen ratio</th>"
                 + "</tr></thead><tbody>")
        for stat in pages {
            html.raw("<tr><td><a href=\"\(pageLink(page, "/frames", stat.page))\">")
            html.text(stat.page)
            html.raw("</a></td><td class=\"num\">\(stat.frames)</td><td class=\"num\">\(stat.dropped)</td><td class=\"num\">\(stat.slow)</td>"
                     + "<td class=\"num\">\(stat.severe)</td><td class=\"num\">\(stat.frozen)</td>"
                     + "<td class=\"num\">\(DashboardPage.percent(stat.slowRatio))</td><td class=\"num\">\(DashboardPage.percent(stat.frozenRatio))</td></tr>")
        }
        html.raw("</tbody></table>")
        let focus = page.filter.page.map { " on \($0)" } ?? " (every page; pick one in the table to narrow)"
        html.raw(DashboardPictures.distribution(durations, title: "Frozen frame durations" + focus))
        html.raw(DashboardPictures.flame(stacks,
                                         title: "Where the main thread was during frozen frames" + focus,
                                         what: "frame events with frozen-frame stacks"))
        return try page.render(title: "Frame health by page", active: "/frames", body: html.output)
    }
}
