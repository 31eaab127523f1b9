import Foundation

/// `/network/breakdown`: one request template (or all requests) by app version and by network
/// type: where the time goes (mean phases), p50/p95 and the error rate of each slice.
enum NetworkBreakdownPage {
    static func render(_ page: DashboardPage) throws -> HTTPResponse {
        let template = page.request.query["template"].flatMap { $0.isEmpty ? nil : $0 }
        let result = try page.context.networkBreakdown.breakdown(
            projectID: page.project.id, template: template, filter: page.filter, now: page.now)
        let shown = template.flatMap { name in result.templates.first { $0.template == name } }
            ?? (template == nil ? result.templates.first : nil)
        var html = HTML()
        html.raw("<p class=\"muted\">")
        html.text(page.filter.rangeLabel)
        html.raw(", \(result.eventsRead) request event(s) read")
        html.raw(result.truncated ? " (the newest; older ones left out)." : ".")
        html.raw(" <a href=\"\(page.link("/network"))\">All templates →</a></p>")
        guard let shown else {
            html.raw("<p class=\"empty\">No requests for this template in the window.</p>")
            return try page.render(title: "Requests by version and network", active: "/network", body: html.output)
        }
        let total = shown.total
        html.raw("<h2>")
        html.text(shown.template == "*" ? "All requests" : shown.template)
        html.raw("</h2><p>\(total.requests) requests · p50 \(DashboardPage.ms(total.p50Ms)) · p95 \(DashboardPage.ms(total.p95Ms))"
                 + " · error rate \(DashboardPage.percent(total.errorRate)) · 4xx \(total.clientErrors)</p>")
        for (title, rows) in [("By network type", shown.byNetwork), ("By app version", shown.byVersion)] {
            html.raw("<h2>\(title)</h2>")
            html.raw(SVGChart.stacked(rows.prefix(20).map { row in
                SVGChart.Stack(label: row.key.isEmpty ? "(none)" : row.key,
                               segments: [("DNS", row.phases.dns ?? 0), ("TCP", row.phases.connect ?? 0), ("TLS", row.phases.tls ?? 0),
                                          ("request", row.phases.request ?? 0), ("TTFB", row.phases.ttfb ?? 0),
                                          ("response", row.phases.response ?? 0)])
            }, title: "\(title): mean phases", unit: "ms"))
            html.raw("<table><thead><tr><th>\(title == "By network type" ? "Network" : "Version")</th><th class=\"num\">Requests</th>"
                     + "<th class=\"num\">Error rate</th><th class=\"num\">Errors</th><th class=\"num\">4xx</th><th class=\"num\">p50</th>"
                     + "<th class=\"num\">p95</th><th class=\"num\">DNS</th><th class=\"num\">TCP</th><th class=\"num\">TLS</th>"
                     + "<th class=\"num\">TTFB</th><th class=\"num\">Response</th></tr></thead><tbody>")
            for row in rows {
                html.raw("<tr><td>")
                html.text(row.key.isEmpty ? "(none)" : row.key)
                html.raw("</td><td class=\"num\">\(row.requests)</td><td class=\"num\">\(DashboardPage.percent(row.errorRate))</td>"
                         + "<td class=\"num\">\(row.errors)</td><td class=\"num\">\(row.clientErrors)</td>"
                         + "<td class=\"num\">\(DashboardPage.ms(row.p50Ms))</td><td class=\"num\">\(DashboardPage.ms(row.p95Ms))</td>"
                         + "<td class=\"num\">\(DashboardPage.ms(row.phases.dns))</td><td class=\"num\">\(DashboardPage.ms(row.phases.connect))</td>"
                         + "<td class=\"num\">\(DashboardPage.ms(row.phases.tls))</td><td class=\"num\">\(DashboardPage.ms(row.phases.ttfb))</td>"
                         + "<td class=\"num\">\(DashboardPage.ms(row.phases.response))</td></tr>")
            }
            html.raw("</tbody></table>")
        }
        if template == nil, result.templates.count > 1 {
            html.raw("<h2>Templates, slowest p95 first</h2><table><thead><tr><th>Request</th><th class=\"num\">Requests</th>"
                     + "<th class=\"num\">Error rate</th><th class=\"num\">p95</th></tr></thead><tbody>")
            for item in result.templates.dropFirst() {
                html.raw("<tr><td><a href=\"\(page.link("/network/breakdown", [("template", item.template)]))\">")
                html.text(item.template)
                html.raw("</a></td><td class=\"num\">\(item.total.requests)</td><td class=\"num\">\(DashboardPage.percent(item.total.errorRate))</td>"
                         + "<td class=\"num\">\(DashboardPage.ms(item.total.p95Ms))</td></tr>")
            }
            html.raw("</tbody></table>")
        }
        return try page.render(title: "Requests by version and network", active: "/network", body: html.output)
    }
}
