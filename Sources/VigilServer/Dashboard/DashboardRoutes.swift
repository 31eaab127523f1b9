import Foundation

/// The dashboard's pages and its login: every page needs the admin token, given once on the
/// login page (or as `/login?token=` from the link `vigil serve` prints) and kept in an
/// HttpOnly, SameSite=Strict session cookie.
enum DashboardRoutes {
    static func install(into router: inout HTTPRouter, context: ServerContext) {
        func page(_ path: String, _ render: @escaping @Sendable (DashboardPage) throws -> HTTPResponse) {
            router.add("GET", path, name: "dashboard") { request in
                guard context.authenticator.isAdmin(request) else {
                    return .redirect(to: "/login?next=" + HTML.queryComponent(request.path))
                }
                return try render(try DashboardPage(context: context, request: request))
            }
        }
        page("/", OverviewPage.render)
        page("/issues", IssuesPage.render)
        router.add("GET", "/issues/:id", name: "dashboard") { request in
            guard context.authenticator.isAdmin(request) else {
                return .redirect(to: "/login?next=" + HTML.queryComponent(request.path))
            }
            return try IssuePage.render(try DashboardPage(context: context, request: request), id: request.pathParameters["id"])
        }
        router.add("POST", "/issues/:id/state", name: "dashboard", body: BodyPolicy(maxBytes: 8 * 1024, acceptsGzip: false)) { request in
            try IssueStatePanel.handlePost(request, context: context)
        }
        page("/hangs", MetricPages.hangs)
        page("/network", MetricPages.network)
        page("/network/breakdown", NetworkBreakdownPage.render)
        page("/launch", MetricPages.launch)
        page("/frames", MetricPages.frames)
        page("/compare", ComparePage.render)
        page("/releases", ReleasesPage.render)
        page("/symbols", SymbolsPage.render)
        page("/alerts", AlertsPage.render)

        router.add("GET", "/login", name: "login") { request in
            let next = safeNext(request.query["next"])
            if let token = request.query["token"] {
                guard context.authenticator.isAdminToken(token) else { return loginForm(next: next, failed: true) }
                return signedIn(context, next: next)
            }
            return loginForm(next: next, failed: false)
        }
        router.add("POST", "/login", name: "login", body: BodyPolicy(maxBytes: 8 * 1024, acceptsGzip: false)) { request in
            let form = formFields(request.bodyData)
            let next = safeNext(form["next"])
            guard let token = form["token"], context.authenticator.isAdminToken(token) else { return loginForm(next: next, failed: true) }
            return signedIn(context, next: next)
        }
        router.add("POST", "/logout", name: "login", body: BodyPolicy(maxBytes: 8 * 1024, acceptsGzip: false)) { _ in
            .redirect(to: "/login", headers: [("Set-Cookie", "\(Authenticator.sessionCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")])
        }
    }

    private static func signedIn(_ context: ServerContext, next: String) -> HTTPResponse {
        let session = context.authenticator.makeSession()
        return .redirect(to: next, headers: [("Set-Cookie",
            "\(Authenticator.sessionCookie)=\(session); Path=/; Max-Age=43200; HttpOnly; SameSite=Strict")])
    }

    /// Only a local path: no scheme, no `//host`, so the login cannot redirect elsewhere.
    static func safeNext(_ value: String?) -> String {
        guard let value, value.hasPrefix("/"), !value.hasPrefix("//"), !value.contains("\\"),
              value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return "/" }
        return value
    }

    static func loginForm(next: String, failed: Bool) -> HTTPResponse {
        var html = HTML()
        html.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Log in · Vigil</title><style>")
        html.raw(DashboardPage.css)
        html.raw("</style></head><body><header><span class=\"brand\">Vigil</span></header><main><h1>Log in</h1>")
        if failed { html.raw("<p class=\"badge worse\">That is not the admin token.</p>") }
        html.raw("<form method=\"post\" action=\"/login\"><input type=\"hidden\" name=\"next\" value=\"")
        html.text(next)
        html.raw("\"><p><label>Admin token <input type=\"password\" name=\"token\" size=\"70\" autocomplete=\"current-password\"></label></p>"
                 + "<p><button type=\"submit\">Log in</button></p></form><p class=\"muted\">The token was printed by "
                 + "<code>vigil serve</code> at its first start; <code>vigil serve --reset-admin-token</code> makes a new one.</p>"
                 + "</main></body></html>")
        return .html(html.output, status: failed ? 401 : 200)
    }

    /// Fields of an `application/x-www-form-urlencoded` body.
    static func formFields(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first.map(String.init).flatMap(decode) else { continue }
            fields[name] = parts.count > 1 ? decode(String(parts[1])) ?? "" : ""
        }
        return fields
    }

    private static func decode(_ text: String) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
