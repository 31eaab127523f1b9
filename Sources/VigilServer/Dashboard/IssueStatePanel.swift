import Foundation

/// The issue page's workflow panel: the state (with the regression mark), the buttons that
/// change it — plain POST forms carrying the session's CSRF token — and the audit; and the
/// handler of those forms, `POST /issues/:id/state`.
enum IssueStatePanel {
    /// The panel's HTML for `issue`.
    static func render(_ issue: IssueDetail, page: DashboardPage) throws -> String {
        let summary = issue.summary
        let state = summary.state
        let now = page.context.clock.wallNow()
        let csrf = page.request.cookie(Authenticator.sessionCookie).map(page.context.authenticator.csrfToken(forSession:)) ?? ""
        let action = page.link("/issues/\(summary.id)/state")
        var html = HTML()
        html.raw("<section class=\"workflow\"><p>State: ")
        html.raw(badge(state, events: summary.events, now: now))
        if state.status == .regressed {
            html.raw(" <span class=\"regression\">Regressed in <b>")
            html.text(state.regressedVersion ?? "?")
            html.raw("</b>")
            if let at = state.regressedAt { html.raw(" on \(DashboardPage.time(at))") }
            html.raw("</span>")
        }
        html.raw("</p><div class=\"actions\">")
        func form(_ verb: String, _ label: String, fields: String = "", name: String) {
            html.raw("<form method=\"post\" action=\"\(action)\" class=\"state\" data-action=\"\(name)\">"
                     + "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
                     + "<input type=\"hidden\" name=\"action\" value=\"\(verb)\">\(fields)"
                     + "<button type=\"submit\" name=\"do\" value=\"\(name)\">\(label)</button></form>")
        }
        if state.effectiveStatus(at: now) != .resolved {
            form("resolve", "Resolve", name: "resolve")
            form("resolve", "Resolve in next release", fields: "<input type=\"hidden\" name=\"in\" value=\"next-release\">",
                 name: "resolve-next")
            form("resolve", "Resolve in version", fields: "<input type=\"text\" name=\"version\" size=\"8\" required "
                 + "placeholder=\"1.0\" aria-label=\"version\">", name: "resolve-version")
        }
        if state.effectiveStatus(at: now) != .ignored {
            form("ignore", "Ignore", name: "ignore")
            form("ignore", "Ignore until more events", fields: "<input type=\"number\" name=\"events\" min=\"1\" value=\"10\" "
                 + "size=\"5\" aria-label=\"events\">", name: "ignore-events")
            form("ignore", "Ignore until", fields: "<input type=\"date\" name=\"until\" required aria-label=\"until\">",
                 name: "ignore-until")
        }
        if state.effectiveStatus(at: now) != .open { form("reopen", "Reopen", name: "reopen") }
        html.raw("</div>")
        let audit = try page.context.store.issueAudit(projectID: page.project.id, issueID: summary.id, limit: 20)
        html.raw("<h2>Audit</h2>")
        if audit.isEmpty {
            html.raw("<p class=\"empty\">No state changes yet.</p>")
        } else {
            html.raw("<table class=\"audit\"><thead><tr><th>When</th><th>Who</th><th>What</th></tr></thead><tbody>")
            for entry in audit {
                html.raw("<tr><td>\(DashboardPage.time(entry.at))</td><td>")
                html.text(entry.actor)
                html.raw("</td><td>")
                html.text(entry.action + (entry.detail.map { " " + $0 } ?? ""))
                html.raw("</td></tr>")
            }
            html.raw("</tbody></table>")
        }
        html.raw("</section>")
        return html.output
    }

    /// A state badge for lists and the issue page: `open`, `resolved in 1.0`, `regressed in 1.1`…
    static func badge(_ state: IssueState, events: Int64, now: Date) -> String {
        let status = state.effectiveStatus(at: now)
        return "<span class=\"badge state-\(status.rawValue)\">" + HTML.escape(state.summary(currentEvents: events, now: now)) + "</span>"
    }

    /// `POST /issues/:id/state`: checks the session, its CSRF token and the origin, applies the
    /// action with the session as the actor, and sends the browser back to the issue.
    static func handlePost(_ request: HTTPRequest, context: ServerContext) throws -> HTTPResponse {
        let form = DashboardRoutes.formFields(request.bodyData)
        guard context.authenticator.isValidDashboardPost(request, csrf: form["csrf"]) else {
            return .html("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Refused · Vigil</title></head><body>"
                         + "<p>This form was not sent from a current dashboard page (missing or wrong CSRF token, or another "
                         + "site's origin). <a href=\"/login\">Log in</a> and try again.</p></body></html>", status: 403)
        }
        let project = try context.project(for: request)
        guard let id = request.pathParameters["id"].flatMap(Int64.init) else { throw HTTPError.notFound("no such issue") }
        let action = try IssueStateRoutes.action(form["action"] ?? "", fields: form)
        do {
            guard try context.store.changeIssueState(projectID: project.id, issueID: id, action: action,
                                                     actor: context.authenticator.actor(of: request) ?? "dashboard",
                                                     now: context.clock.wallNow()) != nil else {
                throw HTTPError.notFound("no issue \(id) in project \(project.name)")
            }
        } catch let error as IssueActionError {
            throw HTTPError.badRequest(error.description, code: "invalid_action")
        }
        var location = "/issues/\(id)"
        if project.name != context.options.defaultProject { location += "?project=" + HTML.queryComponent(project.name) }
        return .redirect(to: location)
    }
}
