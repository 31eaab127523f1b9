import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// The server-rendered dashboard: escaping, login, and every page over HTTP.
@Suite("dashboard")
struct DashboardTests {
    @Test("escaping covers the five HTML metacharacters and leaves other text alone")
    func escaping() {
        #expect(HTML.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(HTML.escape("plain ünïcødé 🚀") == "plain ünïcødé 🚀")
        #expect(HTML.queryComponent("a b/é") == "a%20b%2F%C3%A9")
    }

    @Test("the login only redirects to local paths", arguments: [
        ("/issues", "/issues"), ("//evil.example", "/"), ("https://evil.example", "/"), ("/\\evil", "/"), (nil, "/"),
        ("/a b", "/"),
    ] as [(String?, String)])
    func safeNext(input: String?, expected: String) {
        #expect(DashboardRoutes.safeNext(input) == expected)
    }

    @Test("pages need the admin token; the login sets an HttpOnly SameSite cookie")
    func login() throws {
        let server = try TestServer(.sqlite)
        let anonymous = try server.client.get("/issues")
        #expect(anonymous.status == 303)
        #expect(anonymous.headers["location"] == "/login?next=%2Fissues")
        let wrong = try server.client.post("/login", Data("token=nope&next=%2Fissues".utf8))
        #expect(wrong.status == 401)
        let right = try server.client.post("/login", Data("token=\(TestServer.adminToken)&next=%2Fissues".utf8))
        #expect(right.status == 303)
        #expect(right.headers["location"] == "/issues")
        let cookie = try #require(right.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let session = String(cookie.split(separator: ";")[0])
        #expect(try server.client.get("/issues", headers: ["Cookie": session]).status == 200)
        #expect(try server.client.get("/issues", headers: ["Cookie": "vigil_session=99999999999.forged"]).status == 303)
        let link = try server.client.get("/login?token=\(TestServer.adminToken)&next=/hangs")
        #expect(link.status == 303 && link.headers["location"] == "/hangs")
        // The session also opens the JSON API, as the docs say.
        #expect(try server.client.get("/api/v1/issues", headers: ["Cookie": session]).status == 200)
    }

    @Test("every page renders with hostile data escaped, never raw")
    func pagesEscapeEverything() throws {
        let server = try TestServer(.sqlite)
        try DashboardFixture.populate(server)
        let escaped = HTML.escape(DashboardFixture.hostile)
        var sawEscaped = 0
        for path in try DashboardFixture.pages(server) {
            let page = try server.adminGet(path)
            #expect(page.status == 200, "\(path): \(page.status)")
            #expect(page.text.hasPrefix("<!DOCTYPE html>"), "\(path)")
            #expect(!page.text.contains(DashboardFixture.hostile), "\(path) shows the hostile text raw")
            #expect(!page.text.contains("<script"), "\(path) contains a script element")
            if page.text.contains(escaped) { sawEscaped += 1 }
            #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        }
        // Pages, versions, templates and function names carry the hostile text: it is shown, escaped.
        #expect(sawEscaped >= 6)
        let issue = try server.adminGet(try DashboardFixture.pages(server)[3])
        #expect(issue.text.contains("<tr class=\"inapp inlined\">"))
        #expect(issue.text.contains("CheckoutViewController.pay()"))
    }
}
