import Foundation

/// `/alerts`: the project's alert rules (with a form to add one and a button to delete each),
/// the latest alerts with their delivery state, and the delivery log (every attempt).
///
/// The forms post to `/alerts/rules…` with the session's CSRF token (`csrf`), which
/// ``Authenticator/isValidDashboardPost(_:csrf:)`` checks.
enum AlertsPage {
    static func render(_ page: DashboardPage) throws -> HTTPResponse {
        let store = page.context.store
        let rules = try store.alertRules(projectID: page.project.id)
        let alerts = try store.alerts(projectID: page.project.id, limit: 50)
        let deliveries = try store.alertDeliveries(projectID: page.project.id, limit: 100)
        let csrf = page.request.cookie(Authenticator.sessionCookie).map { page.context.authenticator.csrfToken(forSession: $0) } ?? ""
        var html = HTML()
        html.raw("<h2>Rules</h2>")
        if rules.isEmpty {
            html.raw("<p class=\"empty\">No rules yet: nothing is sent anywhere.</p>")
        } else {
            html.raw("<table><thead><tr><th>Name</th><th>When</th><th class=\"num\">Threshold</th><th class=\"num\">Min. sessions</th>"
                     + "<th class=\"num\">Cooldown</th><th>Webhook</th><th>Signing secret</th><th></th></tr></thead><tbody>")
            for rule in rules {
                html.raw("<tr><td>")
                html.text(rule.name)
                html.raw("</td><td>")
                html.text(rule.kind.label)
                html.raw("</td><td class=\"num\">\(rule.threshold.map { HTML.escape(String($0)) } ?? "–")</td>")
                html.raw("<td class=\"num\">\(rule.minSessions.map(String.init) ?? "–")</td>")
                html.raw("<td class=\"num\">\(rule.cooldownSeconds / 60) min</td><td><code>")
                html.text(rule.url)
                html.raw("</code></td><td><code>")
                html.text(rule.secret)
                html.raw("</code></td><td><form method=\"post\" action=\"\(page.link("/alerts/rules/\(rule.id)/delete"))\">")
                html.raw("<input type=\"hidden\" name=\"csrf\" value=\"")
                html.text(csrf)
                html.raw("\"><button type=\"submit\">Delete</button></form></td></tr>")
            }
            html.raw("</tbody></table>")
        }
        html.raw("<h2>Add a rule</h2><form method=\"post\" action=\"\(page.link("/alerts/rules"))\" class=\"rule\">")
        html.raw("<input type=\"hidden\" name=\"csrf\" value=\"")
        html.text(csrf)
        html.raw("\"><p><label>Name <input name=\"name\" required size=\"30\"></label> <label>When <select name=\"kind\">")
        for kind in AlertRule.Kind.allCases {
            html.raw("<option value=\"\(kind.rawValue)\">")
            html.text(kind.label)
            html.raw("</option>")
        }
        html.raw("</select></label></p><p><label>Threshold <input name=\"threshold\" size=\"8\" inputmode=\"decimal\"></label> "
                 + "<label>Min. sessions <input name=\"minSessions\" size=\"8\" inputmode=\"numeric\"></label> "
                 + "<label>Cooldown (minutes) <input name=\"cooldownMinutes\" size=\"6\" value=\"60\" inputmode=\"decimal\"></label></p>"
                 + "<p><label>Webhook URL <input name=\"url\" type=\"url\" required size=\"60\"></label> "
                 + "<button type=\"submit\">Add rule</button></p></form>"
                 + "<p class=\"muted\">Threshold: events per hour (issue events), percent (crash-free users), seconds per "
                 + "foreground hour (hang rate). Deliveries are signed: see <code>docs/api.md</code>, “Alert webhooks”.</p>")
        html.raw("<h2>Alerts</h2>")
        if alerts.isEmpty {
            html.raw("<p class=\"empty\">No alert has fired.</p>")
        } else {
            html.raw("<table><thead><tr><th>Fired</th><th>Alert</th><th>State</th><th class=\"num\">Attempts</th><th>Last error</th>"
                     + "<th>Id</th></tr></thead><tbody>")
            for alert in alerts {
                html.raw("<tr><td>\(DashboardPage.time(alert.createdAt))</td><td>")
                html.text(alert.text)
                let badge = alert.state == "delivered" ? "better" : (alert.state == "pending" ? "" : "worse")
                html.raw("</td><td><span class=\"badge \(badge)\">")
                html.text(alert.state)
                html.raw("</span>")
                if let next = alert.nextAttemptAt { html.raw(" <span class=\"muted\">next \(DashboardPage.time(next))</span>") }
                html.raw("</td><td class=\"num\">\(alert.attempts)</td><td>")
                html.text(alert.lastError ?? "")
                html.raw("</td><td><code>")
                html.text(alert.id)
                html.raw("</code></td></tr>")
            }
            html.raw("</tbody></table>")
        }
        html.raw("<h2>Delivery log</h2>")
        if deliveries.isEmpty {
            html.raw("<p class=\"empty\">Nothing delivered yet.</p>")
        } else {
            html.raw("<table><thead><tr><th>Sent</th><th>Alert</th><th class=\"num\">Attempt</th><th class=\"num\">Status</th>"
                     + "<th class=\"num\">Time</th><th>Error</th></tr></thead><tbody>")
            for delivery in deliveries {
                html.raw("<tr><td>\(DashboardPage.time(delivery.attemptedAt))</td><td><code>")
                html.text(delivery.alertID)
                html.raw("</code></td><td class=\"num\">\(delivery.attempt)</td><td class=\"num\">")
                html.raw(delivery.status.map(String.init) ?? "–")
                html.raw("</td><td class=\"num\">\(DashboardPage.ms(delivery.durationMs))</td><td>")
                html.text(delivery.error ?? "")
                html.raw("</td></tr>")
            }
            html.raw("</tbody></table>")
        }
        return try page.render(title: "Alerts", active: "/alerts", body: html.output)
    }
}
