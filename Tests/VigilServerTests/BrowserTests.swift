import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// Headless Chromium loads every dashboard page: the HTML parses, nothing logs a console error
/// or a blocked resource, and a screenshot of the issues page is kept in `bench-results/`.
@Suite("dashboard in a browser")
struct BrowserTests {
    static var chromium: String {
        ProcessInfo.processInfo.environment["VIGIL_CHROMIUM"] ?? "/usr/bin/chromium"
    }

    /// Loads `url` in headless Chromium with the profile in `profile`; returns the DOM and the
    /// browser's console and error lines.
    static func load(_ url: String, profile: URL, screenshot: URL? = nil) throws -> (dom: String, problems: [String]) {
        var arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--no-default-browser-check", "--disable-extensions", "--user-data-dir=\(profile.path)",
                         "--enable-logging=stderr", "--v=0", "--window-size=1280,1000"]
        if let screenshot { arguments.append("--screenshot=\(screenshot.path)") } else { arguments.append("--dump-dom") }
        let outcome = try SpawnedProcess.run(chromium, arguments + [url], timeout: 90)
        guard outcome.exitStatus == 0 else { throw TestSupportError("chromium failed on \(url): \(outcome)") }
        let problems = outcome.standardError.split(separator: "\n").map(String.init).filter { line in
            line.contains("CONSOLE") || line.contains("Uncaught") || line.contains("Refused to")
                || line.contains("net::ERR_") || line.contains("Failed to load resource")
        }
        return (outcome.standardOutput, problems)
    }

    @Test("the console check sees a real page error")
    func detectsErrors() throws {
        let profile = try TemporaryDirectory(prefix: "chromium")
        let (_, problems) = try Self.load("data:text/html,<script>missingFunction()</script>", profile: profile.url)
        #expect(problems.contains { $0.contains("missingFunction") })
    }

    @Test("every page loads without page errors; the issues page is captured")
    func everyPage() throws {
        let server = try TestServer(.sqlite)
        try DashboardFixture.populate(server)
        let profile = try TemporaryDirectory(prefix: "chromium")
        let base = "http://127.0.0.1:\(server.app.port)"
        let login = try Self.load("\(base)/login?token=\(TestServer.adminToken)&next=/issues", profile: profile.url)
        #expect(login.dom.contains("<h1>Issues</h1>"), "the login link did not lead to the issues page")
        for path in try DashboardFixture.pages(server) {
            let (dom, problems) = try Self.load(base + path, profile: profile.url)
            #expect(problems.isEmpty, "\(path): \(problems)")
            #expect(dom.contains("</main>"), "\(path) did not render")
            #expect(!dom.contains("Log in</h1>"), "\(path) asked for a login")
        }
        let results = BuildProducts.packageRoot.appendingPathComponent("bench-results", isDirectory: true)
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        let shot = results.appendingPathComponent("dashboard-issues.png")
        try? FileManager.default.removeItem(at: shot)
        _ = try Self.load(base + "/issues", profile: profile.url, screenshot: shot)
        let size = (try FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size > 10_000, "the screenshot is missing or empty")
    }
}
