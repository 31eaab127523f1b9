import Foundation

/// `/issues`: crashes and hangs grouped by fingerprint, sorted by events or users, filtered by
/// workflow state (unresolved by default), each with its state and any regression mark.
enum IssuesPage {
    static func render(_ page: DashboardPage) throws -> HTTPResponse {
        let request = page.request
        let kind = request.query["kind"].flatMap { $0 == "crash" || $0 == "hang" ? $0 : nil }
        let order = request.query["sort"].flatMap(IssueOrder.init(rawValue:)) ?? .events
        // Unresolved (open or regressed) unless the filter says otherwise.
        let state = request.query["state"].flatMap { ServerStore.issueStateFilters.contains($0) ? $0 : nil } ?? "unresolved"
        let issues = try page.context.insights.issues(projectID: page.project.id, filter: page.filter, now: page.now, kind: kind,
                                                      state: state, order: order, limit: 200)
        var html = HTML()
        html.raw("<p class=\"tabs states\">")
        for value in ServerStore.issueStateFilters {
            var query: [(String, String)] = [("sort", order.rawValue), ("state", value)]
            if let kind { query.append(("kind", kind)) }
            html.raw("<a href=\"\(page.link("/issues", query))\"\(value == state ? " class=\"active\"" : "")>\(value)</a>")
        }
        html.raw("</p><p class=\"tabs\">")
        for (label, value) in [("All", nil), ("Crashes", "crash"), ("Hangs", "hang")] as [(String, String?)] {
            var query: [(String, String)] = [("sort", order.rawValue), ("state", state)]
            if let value { query.append(("kind", value)) }
            html.raw("<a href=\"\(page.link("/issues", query))\"\(value == kind ? " class=\"active\"" : "")>\(label)</a>")
        }
        html.raw(" · sort by ")
        for option in IssueOrder.allCases {
            var query: [(String, String)] = [("sort", option.rawValue), ("state", state)]
            if let kind { query.append(("kind", kind)) }
            html.raw("<a href=\"\(page.link("/issues", query))\"\(option == order ? " class=\"active\"" : "")>\(option.rawValue)</a>")
        }
        html.raw("</p>")
        html.raw(table(issues, page: page, empty: "No crashes or hangs in this state, time range and filter."))
        return try page.render(title: "Issues", active: "/issues", body: html.output)
    }

    /// The issue table (also on the overview); `empty` is what stands in for an empty one.
    static func table(_ issues: [IssueSummary], page: DashboardPage,
                      empty: String = "No crashes or hangs in this time range and filter.") -> String {
        guard !issues.isEmpty else { return "<p class=\"empty\">\(empty)</p>" }
        let now = page.context.clock.wallNow()
        var html = HTML()
        html.raw("<table><thead><tr><th>Issue</th><th>Kind</th><th>State</th><th class=\"num\">Events</th><th class=\"num\">Users</th>"
                 + "<th>Versions</th><th>First seen</th><th>Last seen</th></tr></thead><tbody>")
        for issue in issues {
            html.raw("<tr><td><a href=\"\(page.link("/issues/\(issue.id)"))\">")
            html.text(issue.title)
            html.raw("</a>")
            if let subtitle = issue.subtitle {
                html.raw("<br><span class=\"muted\">")
                html.text(String(subtitle.prefix(160)))
                html.raw("</span>")
            }
            if !issue.symbolicated { html.raw(" <span class=\"badge\">unsymbolicated</span>") }
            html.raw("</td><td><span class=\"badge \(issue.kind == "crash" ? "crash" : "hang")\">")
            html.text(issue.kind)
            html.raw("</span></td><td>\(IssueStatePanel.badge(issue.state, events: issue.events, now: now))</td><td class=\"num\">\(issue.events)</td><td class=\"num\">\(issue.users)</td><td>")
            html.text(issue.versions.prefix(4).joined(separator: ", ") + (issue.versions.count > 4 ? " …" : ""))
            html.raw("</td><td>\(DashboardPage.time(issue.firstSeen))</td><td>\(DashboardPage.time(issue.lastSeen))</td></tr>")
        }
        html.raw("</tbody></table>")
        return html.output
    }
}
