import Foundation

/// `/issues/:id`: one issue's symbolicated stack (in-app frames highlighted), classification,
/// versions and latest events, and its workflow panel (state, regression mark, buttons, audit).
enum IssuePage {
    static func render(_ page: DashboardPage, id: String?) throws -> HTTPResponse {
        guard let id = id.flatMap(Int64.init), let issue = try page.context.store.issue(projectID: page.project.id, id: id) else {
            throw HTTPError.notFound("no such issue in project \(page.project.name)")
        }
        let summary = issue.summary
        var html = HTML()
        html.raw("<p><span class=\"badge \(summary.kind == "crash" ? "crash" : "hang")\">")
        html.text(summary.kind)
        html.raw("</span> ")
        if let subtitle = summary.subtitle { html.text(subtitle) }
        html.raw("</p><div class=\"cards\"><div class=\"card\"><b>\(summary.events)</b>events</div><div class=\"card\"><b>\(summary.users)</b>users</div>"
                 + "<div class=\"card\"><b>\(DashboardPage.time(summary.firstSeen))</b>first seen</div>"
                 + "<div class=\"card\"><b>\(DashboardPage.time(summary.lastSeen))</b>last seen</div></div>")
        html.raw(try IssueStatePanel.render(issue, page: page))
        if let classification = issue.classification {
            html.raw("<h2>Diagnosis</h2><p><span class=\"badge\">")
            html.text(classification.category)
            html.raw("</span> ")
            html.text(classification.summary)
            if let confidence = classification.confidence {
                html.raw(" <span class=\"muted\">(")
                html.text(confidence)
                html.raw(" confidence)</span>")
            }
            html.raw("</p>")
            if !classification.evidence.isEmpty {
                html.raw("<ul>")
                for item in classification.evidence.prefix(8) {
                    html.raw("<li>")
                    html.text(item)
                    html.raw("</li>")
                }
                html.raw("</ul>")
            }
            for advice in classification.advice.prefix(4) {
                html.raw("<p>→ ")
                html.text(advice)
                html.raw("</p>")
            }
        }
        html.raw("<h2>Stack</h2>")
        if !summary.symbolicated {
            html.raw("<p class=\"muted\">Not symbolicated: upload the app's debug files (see <a href=\"\(page.link("/symbols"))\">Symbols</a>); "
                     + "the events are re-processed when they arrive.</p>")
        }
        html.raw("<table><thead><tr><th>#</th><th>Function</th><th>Location</th><th>Image</th><th>Address</th></tr></thead><tbody>")
        var number = 0
        for frame in issue.frames {
            var classes: [String] = []
            if frame.inApp { classes.append("inapp") }
            if frame.inlined { classes.append("inlined") }
            html.raw("<tr\(classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"")><td class=\"num\">\(frame.inlined ? "" : String(number))</td><td class=\"fn\">")
            if !frame.inlined { number += 1 }
            html.text(frame.function ?? frame.offset.map { "0x" + String($0, radix: 16) } ?? "?")
            if frame.inlined { html.raw(" <span class=\"muted\">(inlined)</span>") }
            html.raw("</td><td>")
            if let file = frame.file { html.text(file + (frame.line.map { ":\($0)" } ?? "")) }
            html.raw("</td><td>")
            html.text(frame.image ?? "?")
            html.raw("</td><td><code>")
            html.text(frame.address)
            html.raw("</code></td></tr>")
        }
        html.raw("</tbody></table>")
        if summary.kind == "hang" {
            // The issue's own events within the filter, like the latest events below.
            let report = try page.context.stackProfiler.hangs(projectID: page.project.id, filter: page.filter, now: page.now,
                                                              issueID: summary.id)
            html.raw(DashboardPictures.flame(report, title: "Sampled stacks of this hang", what: "of this issue's events in the range"))
        }
        html.raw("<h2>Versions affected</h2><table><thead><tr><th>Version</th><th class=\"num\">Events</th>"
                 + "<th>First seen</th><th>Last seen</th></tr></thead><tbody>")
        for version in issue.versions {
            var filter = page.filter
            filter.release = version.version
            html.raw("<tr><td><a href=\"\(page.link("/issues", filter: filter))\">")
            html.text(version.version)
            html.raw("</a></td><td class=\"num\">\(version.events)</td><td>\(DashboardPage.time(version.firstSeen))</td>"
                     + "<td>\(DashboardPage.time(version.lastSeen))</td></tr>")
        }
        html.raw("</tbody></table><h2>Latest events in this time range and filter</h2><table><thead><tr><th>Time</th><th>Version</th><th>Device</th><th>OS</th>"
                 + "<th>Page</th><th class=\"num\">Duration</th></tr></thead><tbody>")
        for event in try page.context.store.issueEvents(projectID: page.project.id, issueID: summary.id, limit: 25,
                                                        conditions: page.filter.eventConditions(now: page.now)) {
            html.raw("<tr><td>\(DashboardPage.time(event.time))</td><td>")
            html.text("\(event.appVersion) (\(event.appBuild))")
            html.raw("</td><td>")
            html.text(event.deviceModel)
            html.raw("</td><td>")
            html.text("\(event.os) \(event.osVersion)")
            html.raw("</td><td>")
            html.text(event.page ?? "")
            html.raw("</td><td class=\"num\">\(DashboardPage.ms(event.durationMs))</td></tr>")
        }
        html.raw("</tbody></table><p class=\"muted\">Fingerprint <code>")
        html.text(summary.fingerprint)
        html.raw("</code></p>")
        return try page.render(title: summary.title, active: "/issues", body: html.output,
                               note: "The counts, stack and versions are the issue's whole history; the flame graph and the latest events follow the filter.")
    }
}
