import Foundation

/// `/`: events by type and by day, issue counts, the top issues.
enum OverviewPage {
    static func render(_ page: DashboardPage) throws -> HTTPResponse {
        let allIssues = try page.context.insights.issues(projectID: page.project.id, filter: page.filter, now: page.now, limit: 1000)
        let overview = try page.context.insights.overview(projectID: page.project.id, filter: page.filter, now: page.now,
                                                          issues: allIssues)
        let issues = Array(allIssues.prefix(5))
        var html = HTML()
        html.raw("<div class=\"cards\">")
        let total = overview.eventsByType.values.reduce(0, +)
        for (label, value) in [("events", total), ("crash issues", Int64(overview.crashIssues)), ("hang issues", Int64(overview.hangIssues)),
                               ("waiting for processing", Int64(overview.pending))] {
            html.raw("<div class=\"card\"><b>\(value)</b>")
            html.text(label)
            html.raw("</div>")
        }
        html.raw("</div>")
        // The latest release's health, when sessions are reported.
        if let newest = try page.context.rollups.appVersions(projectID: page.project.id).first,
           let latest = try ReleasesPage.health(page, version: newest).first?.total {
            html.raw("<h2>Latest release: ")
            html.text(latest.name)
            html.raw("</h2><div class=\"cards\" id=\"latest-release\">")
            for (label, value) in [("crash-free users", ReleasesPage.percent(latest.crashFreeUsersPercent)),
                                   ("crash-free sessions", ReleasesPage.percent(latest.crashFreeSessionsPercent)),
                                   ("hang rate (s per foreground hour)", ReleasesPage.number(latest.hangRateSecondsPerHour)),
                                   ("sessions", String(latest.sessions))] {
                html.raw("<div class=\"card\"><b>\(HTML.escape(value))</b>")
                html.text(label)
                html.raw("</div>")
            }
            html.raw("</div><p><a href=\"\(page.link("/releases"))\">All releases</a></p>")
        }
        html.raw("<h2>Events by type</h2>")
        html.raw(SVGChart.bars(overview.eventsByType.sorted { $0.value > $1.value }
            .map { SVGChart.Bar(label: $0.key, value: Double($0.value), caption: "\($0.value)") }, title: "Events by type"))
        let days = overview.eventsByDay.keys.sorted().suffix(60)
        html.raw("<h2>Events per day</h2>")
        html.raw(SVGChart.lines([SVGChart.Series(name: "events", points: days.enumerated().map { ($0.offset, Double(overview.eventsByDay[$0.element] ?? 0)) })],
                                xLabels: days.map { String($0.dropFirst(5)) }, title: "Events per day", unit: "events"))
        html.raw("<h2>Top issues</h2>")
        html.raw(IssuesPage.table(issues, page: page))
        if !overview.versions.isEmpty {
            html.raw("<p class=\"muted\">Versions seen: ")
            html.text(overview.versions.prefix(12).joined(separator: ", "))
            html.raw("</p>")
        }
        return try page.render(title: "Overview", active: "/", body: html.output)
    }
}
