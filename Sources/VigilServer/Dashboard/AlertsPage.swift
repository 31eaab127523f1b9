import Foundation

/// `/alerts`: the project's alert rules (each with its state, a form to edit it and buttons to
/// pause, resume or delete it), a form to add one, the latest alerts with their delivery state,
/// and the delivery log (every attempt).
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
        let csrfField = "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
        var html = HTML()
        html.raw("<h2>Rules</h2>")
        DashboardTable.render(rules, columns: [.text("Name"), .text("When"), .number("Threshold"), .number("Window"),
                                               .number("Min. sessions"), .number("Cooldown"), .text("Webhook"),
                                               .text("Signing secret"), .text("State"), .text("")],
                              empty: "No rules yet: nothing is sent anywhere.", into: &html) { rule in
            [.text(rule.name), .text(rule.kind.label), .text(rule.threshold.map { String($0) } ?? "–"),
             .text(rule.windowSeconds.map { "\(Self.minutes($0)) min" } ?? "–"), .text(rule.minSessions.map(String.init) ?? "–"),
             .text("\(Self.minutes(rule.cooldownSeconds)) min"), .code(rule.url), .code(rule.secret),
             .markup(rule.enabled ? "<span class=\"badge better\">active</span>"
                     : "<span class=\"badge worse\">paused</span>"),
             .markup(actions(rule, page: page, csrfField: csrfField))]
        }
        if rules.contains(where: { !$0.enabled }) {
            html.raw("<p class=\"muted\">A paused rule fires nothing; resumed, it does not fire for what happened while it was "
                     + "paused (release rules judge the release as it is then).</p>")
        }
        html.raw("<h2>Add a rule</h2><form method=\"post\" action=\"\(page.link("/alerts/rules"))\" class=\"rule\">")
        html.raw(csrfField)
        html.raw("<p><label>Name <input name=\"name\" required size=\"30\"></label> <label>When <select name=\"kind\">")
        for kind in AlertRule.Kind.allCases {
            html.raw("<option value=\"\(kind.rawValue)\">")
            html.text(kind.label)
            html.raw("</option>")
        }
        html.raw("</select></label></p><p><label>Threshold <input name=\"threshold\" size=\"8\" inputmode=\"decimal\"></label> "
                 + "<label>Window (minutes) <input name=\"windowMinutes\" size=\"6\" value=\"60\" inputmode=\"decimal\"></label> "
                 + "<label>Min. sessions <input name=\"minSessions\" size=\"8\" inputmode=\"numeric\"></label> "
                 + "<label>Cooldown (minutes) <input name=\"cooldownMinutes\" size=\"6\" value=\"60\" inputmode=\"decimal\"></label></p>"
                 + "<p><label>Webhook URL <input name=\"url\" type=\"url\" required size=\"60\"></label> "
                 + "<button type=\"submit\">Add rule</button></p></form>"
                 + "<p class=\"muted\">Threshold: events in the window (issue events), percent (crash-free users), seconds per "
                 + "foreground hour (hang rate). Deliveries are signed: see <code>docs/api.md</code>, “Alert webhooks”.</p>")
        html.raw("<h2>Alerts</h2>")
        DashboardTable.render(alerts, columns: [.text("Fired"), .text("Alert"), .text("State"), .number("Attempts"), .text("Last error"),
                                                .text("Id")],
                              empty: "No alert has fired.", into: &html) { alert in
            let badge = alert.state == "delivered" ? "better" : (alert.state == "pending" ? "" : "worse")
            var state = "<span class=\"badge \(badge)\">\(HTML.escape(alert.state))</span>"
            if let next = alert.nextAttemptAt { state += " <span class=\"muted\">next \(DashboardPage.time(next))</span>" }
            return [.markup(DashboardPage.time(alert.createdAt)), .text(alert.text), .markup(state), .markup("\(alert.attempts)"),
                    .text(alert.lastError ?? ""), .code(alert.id)]
        }
        html.raw("<h2>Delivery log</h2>")
        DashboardTable.render(deliveries, columns: [.text("Sent"), .text("Alert"), .number("Attempt"), .number("Status"), .number("Time"),
                                                    .text("Error")],
                              empty: "Nothing delivered yet.", into: &html) { delivery in
            [.markup(DashboardPage.time(delivery.attemptedAt)), .code(delivery.alertID), .markup("\(delivery.attempt)"),
             .markup(delivery.status.map(String.init) ?? "–"), .markup(DashboardPage.ms(delivery.durationMs)), .text(delivery.error ?? "")]
        }
        return try page.render(title: "Alerts", active: "/alerts", body: html.output)
    }

    /// A rule's buttons (pause or resume, delete) and its edit form, folded in a `<details>`:
    /// the fields its kind uses, filled with its values.
    private static func actions(_ rule: AlertRule, page: DashboardPage, csrfField: String) -> String {
        var html = HTML()
        let toggle = rule.enabled ? ("pause", "Pause") : ("resume", "Resume")
        html.raw("<form method=\"post\" action=\"\(page.link("/alerts/rules/\(rule.id)/\(toggle.0)"))\">\(csrfField)"
                 + "<button type=\"submit\">\(toggle.1)</button></form>")
        html.raw("<form method=\"post\" action=\"\(page.link("/alerts/rules/\(rule.id)/delete"))\">\(csrfField)"
                 + "<button type=\"submit\">Delete</button></form>")
        html.raw("<details><summary>Edit</summary><form method=\"post\" action=\"\(page.link("/alerts/rules/\(rule.id)/edit"))\" "
                 + "class=\"rule\">\(csrfField)<p><label>Name <input name=\"name\" required size=\"24\" value=\"")
        html.text(rule.name)
        html.raw("\"></label></p><p><label>Webhook URL <input name=\"url\" type=\"url\" required size=\"40\" value=\"")
        html.text(rule.url)
        html.raw("\"></label></p><p>")
        if let threshold = rule.threshold {
            html.raw("<label>Threshold <input name=\"threshold\" size=\"8\" inputmode=\"decimal\" value=\"\(HTML.escape(String(threshold)))\">"
                     + "</label> ")
        }
        if let window = rule.windowSeconds {
            html.raw("<label>Window (minutes) <input name=\"windowMinutes\" size=\"6\" inputmode=\"decimal\" value=\"\(Self.minutes(window))\">"
                     + "</label> ")
        }
        if let minSessions = rule.minSessions {
            html.raw("<label>Min. sessions <input name=\"minSessions\" size=\"8\" inputmode=\"numeric\" value=\"\(minSessions)\"></label> ")
        }
        html.raw("<label>Cooldown (minutes) <input name=\"cooldownMinutes\" size=\"6\" inputmode=\"decimal\" "
                 + "value=\"\(HTML.escape(Self.minutes(rule.cooldownSeconds)))\"></label></p>"
                 + "<p><button type=\"submit\">Save</button></p></form></details>")
        return html.output
    }

    /// Seconds as minutes for a form field: `30`, or `0.5`.
    private static func minutes(_ seconds: Int64) -> String {
        seconds % 60 == 0 ? String(seconds / 60) : String(Double(seconds) / 60)
    }
}
