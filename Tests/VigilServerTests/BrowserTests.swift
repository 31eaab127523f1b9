import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// Headless Chromium loads every dashboard page: the HTML parses, nothing logs a console error
/// or a blocked resource, and a screenshot of the issues page is kept in `.build/test-artifacts/`.
@Suite("dashboard in a browser")
struct BrowserTests {
    static var chromium: String {
        ProcessInfo.processInfo.environment["VIGIL_CHROMIUM"] ?? "/usr/bin/chromium"
    }

    /// Loads `url` in headless Chromium with the profile in `profile`; returns the DOM and the
    /// browser's console and error lines.
    static func load(_ url: String, profile: URL, screenshot: URL? = nil, height: Int = 1000,
                     extra: [String] = []) throws -> (dom: String, problems: [String]) {
        var arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--no-default-browser-check", "--disable-extensions", "--user-data-dir=\(profile.path)",
                         "--enable-logging=stderr", "--v=0", "--window-size=1280,\(height)"] + extra
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

    /// The numbers of `name="…"` attributes in `dom`, in document order.
    static func numbers(_ name: String, in dom: String) -> [Double] {
        dom.components(separatedBy: "\(name)=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
    }

    @Test("the pictures render in a browser: each SVG is in the DOM, its numbers are the API's, and the filter changes both")
    func pictures() throws {
        let server = try TestServer(.sqlite, symbolication: TableSymbolication())
        try PicturesFixture.populate(server)
        let profile = try TemporaryDirectory(prefix: "chromium")
        let base = "http://127.0.0.1:\(server.app.port)"
        func api(_ path: String) throws -> [String: Any] { try server.adminGet(path).json }
        func page(_ path: String) throws -> String {
            let (dom, problems) = try Self.load(base + path, profile: profile.url)
            #expect(problems.isEmpty, "\(path): \(problems)")
            #expect(dom.contains("</main>") && !dom.contains("Log in</h1>"), "\(path) did not render")
            return dom
        }
        _ = try Self.load("\(base)/login?token=\(TestServer.adminToken)&next=/", profile: profile.url)

        // Hangs: the flame graph's root is every sampled stack of the page's hangs; the histogram's
        // total is the number of hangs; narrowing to a release changes both.
        for query in ["range=all&page=Checkout", "range=all&page=Checkout&release=2.0.0", "range=all"] {
            let dom = try page("/hangs?\(query)")
            #expect(dom.contains("<svg class=\"chart flame\""), "\(query)")
            let flame = try api("/api/v1/flamegraph?source=hangs&\(query)")
            #expect(Self.numbers("data-samples", in: dom).first == (flame["samples"] as? Double), "\(query)")
            #expect(dom.contains("class=\"inapp\""), "in-app frames are marked")
            let hangs = try api("/api/v1/distributions/hang.duration?\(query)")
            #expect(Self.numbers("data-total", in: dom) == [hangs["total"] as? Double ?? -1], "\(query)")
            let bars = Self.numbers("data-count", in: dom)
            #expect(bars == (hangs["bins"] as? [[String: Any]] ?? []).compactMap { $0["count"] as? Double }, "\(query)")
        }
        let checkout = Self.numbers("data-samples", in: try page("/hangs?range=all&page=Checkout")).first
        let newer = Self.numbers("data-samples", in: try page("/hangs?range=all&page=Checkout&release=2.0.0")).first
        #expect(checkout == 350 && newer == 150, "the release filter narrows the flame graph")

        // A hang issue's own flame graph.
        let issueID = try #require(try server.store.issues(projectID: server.project.id, kind: "hang").first?.id)
        let issue = try page("/issues/\(issueID)?range=all")
        #expect(Self.numbers("data-samples", in: issue).first == (try api("/api/v1/flamegraph?issue=\(issueID)")["samples"] as? Double))

        // Frozen frames.
        let frames = try page("/frames?range=all")
        #expect(Self.numbers("data-samples", in: frames).first == (try api("/api/v1/flamegraph?source=frozen")["samples"] as? Double))
        #expect(Self.numbers("data-total", in: frames) == [try api("/api/v1/distributions/frames.frozen.duration")["total"] as? Double ?? -1])

        // Requests: the latency histogram, all releases and one.
        for query in ["range=all", "range=all&release=1.0.0"] {
            let dom = try page("/network?\(query)")
            let latency = try api("/api/v1/distributions/network.total?\(query)")
            #expect(Self.numbers("data-total", in: dom) == [latency["total"] as? Double ?? -1], "\(query)")
        }

        // Launch: the phase waterfall's bars end at the API's medians; the typical launch's tasks
        // are drawn, the critical path outlined; a release without task spans shows none.
        let launch = try page("/launch?range=all")
        let waterfall = try api("/api/v1/launch/waterfall")
        let ends = Set(Self.numbers("data-end", in: launch).map(SVGChart.format))
        for release in waterfall["releases"] as? [[String: Any]] ?? [] {
            for mark in ["mainMs", "didFinishMs", "firstFrameMs", "fullyDrawnMs"] {
                guard let value = release[mark] as? Double else { continue }
                #expect(ends.contains(SVGChart.format(value)), "\(mark) \(value) of \(release["version"] ?? "")")
            }
        }
        let path = ((waterfall["typical"] as? [String: Any])?["timeline"] as? [String: Any])?["criticalPath"] as? [String]
        #expect(path == PicturesFixture.criticalPath)
        #expect(launch.contains("Critical path (outlined in red): \(PicturesFixture.criticalPath.joined(separator: " → "))"))
        #expect(launch.components(separatedBy: "class=\"critical\"").count - 1 == PicturesFixture.criticalPath.count)
        #expect(Self.numbers("data-total", in: launch) == [try api("/api/v1/distributions/launch.ttid?dimension=cold")["total"] as? Double ?? -1])
        let narrowed = try page("/launch?range=all&release=2.0.0")
        #expect(!narrowed.contains("class=\"critical\"") && narrowed.contains("No launch in this range carried task spans"))

        // Screenshots to look at, under .build (ignored by git).
        let results = BuildProducts.packageRoot.appendingPathComponent(".build/test-artifacts", isDirectory: true)
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        for (name, path) in [("dashboard-hangs", "/hangs?range=all"), ("dashboard-launch", "/launch?range=all")] {
            let shot = results.appendingPathComponent("\(name).png")
            try? FileManager.default.removeItem(at: shot)
            _ = try Self.load(base + path, profile: profile.url, screenshot: shot, height: 2600)
            let size = (try FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? NSNumber)?.intValue ?? 0
            #expect(size > 10_000, "the \(name) screenshot is missing or empty")
        }
    }

    @Test("filters in a browser: the OS filter changes the hang numbers as the API counts them, its chip link removes it")
    func filters() throws {
        let server = try TestServer(.sqlite)
        #expect(try server.postEvents(FilterFixture.events(now: Date())).status == 200)
        try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
        let profile = try TemporaryDirectory(prefix: "chromium")
        let base = "http://127.0.0.1:\(server.app.port)"
        func row(_ page: String, _ hangs: Int) -> String { ">\(page)</a></td><td class=\"num\">\(hangs)</td>" }

        let all = try Self.load("\(base)/login?token=\(TestServer.adminToken)&next=%2Fhangs", profile: profile.url)
        #expect(all.problems.isEmpty, "\(all.problems)")
        #expect(all.dom.contains(row("Checkout", 4)) && all.dom.contains(row("Home", 2)), "\(all.dom.suffix(4000))")

        let filtered = try Self.load("\(base)/hangs?os=17.5&device=iPhone12%2C1", profile: profile.url)
        #expect(filtered.problems.isEmpty, "\(filtered.problems)")
        #expect(filtered.dom.contains(row("Checkout", 3)) && !filtered.dom.contains(row("Home", 2)), "\(filtered.dom.suffix(4000))")
        let api = try server.adminGet("/api/v1/aggregates/hangs?os=17.5&device=iPhone12%2C1&range=30d")
        #expect((api.json["pages"] as? [[String: Any]])?.map { $0["hangs"] as? Int } == [3], "the page shows the API's numbers")
        #expect(filtered.dom.contains("data-facet=\"os\"") && filtered.dom.contains("OS 17.5"))

        // The OS chip is a link to the same view without the OS filter; the device filter stays.
        let chip = try #require(filtered.dom.range(of: #"<a class="chip" data-facet="os" href="([^"]*)""#, options: .regularExpression))
        let href = String(filtered.dom[chip]).components(separatedBy: "href=\"")[1].dropLast().replacingOccurrences(of: "&amp;", with: "&")
        #expect(href == "/hangs?device=iPhone12%2C1")
        let unchipped = try Self.load(base + href, profile: profile.url)
        #expect(!unchipped.dom.contains("data-facet=\"os\"") && unchipped.dom.contains("data-facet=\"device\""))
        #expect(unchipped.dom.contains(row("Checkout", 3)), "iPhone12,1 alone: the same three hangs")
        // Links between pages carry the filter.
        #expect(unchipped.dom.contains("href=\"/network?device=iPhone12%2C1\""), "\(unchipped.dom.prefix(3000))")
        let recent = try Self.load("\(base)/hangs?range=24h", profile: profile.url)
        #expect(recent.dom.contains(row("Home", 2)) && !recent.dom.contains(">Checkout</a>"))
    }

    @Test("a demo run through the SDK pipeline after two days of simulated history: every page loads without page errors, the hang's stack shows blockMainThreadForDemo, the crash and the demo's requests are there, the trends have a point per day")
    func demoRun() throws {
        let vigil = try BuildProducts.executable("vigil")
        let sample = try BuildProducts.executable("vigil-sample")
        let work = try TemporaryDirectory(prefix: "demo")
        let started = Date()
        // A port free when asked can be taken by another test before the demo binds it: then the
        // demo ends at once saying so, and it is started again on another port.
        var port: UInt16 = 0
        var launched: SpawnedProcess.Handle?
        var directory = work.file("vigil-1")
        for attempt in 1...3 {
            port = try LoopbackPort.free()
            directory = work.file("vigil-\(attempt)")
            let run = try SpawnedProcess.start(vigil.path, ["demo", "--dir", work.file("vigil-\(attempt)").path, "--port", String(port),
                                                           "--admin-token", TestServer.adminToken, "--sample", sample.path,
                                                           "--quick", "--history-days", "2", "--exit-after", "600"])
            launched = run
            let deadline = Date().addingTimeInterval(240)
            while !run.standardOutput.contains("Ctrl-C stops the server."), Date() < deadline, !run.hasExited {
                Thread.sleep(forTimeInterval: 0.2)
            }
            guard run.hasExited, run.standardError.contains("Address already in use") else { break }
        }
        let demo = try #require(launched)
        defer {
            demo.terminate()
            demo.wait(timeout: 30)
        }
        let output = demo.standardOutput
        try #require(output.contains("Ctrl-C stops the server."), "the demo did not finish its scenarios: \(output)\n\(demo.standardError)")
        let demoSeconds = Date().timeIntervalSince(started)
        // The scenarios ran through the SDK's store and uploader: each run reports what the server
        // acknowledged, the crash died, and its relaunch uploaded the report.
        #expect(output.contains("vigil-sample crash --kind segv"))
        #expect(output.contains("died of signal \(SIGSEGV) as intended"))
        #expect(output.contains("the relaunch: recovers the crash report and uploads it"))
        #expect(!output.contains(" 0 event(s) uploaded"), "every normal run uploaded something: \(output)")
        #expect(output.contains("Hang in blockMainThreadForDemo"))
        #expect(output.contains("top in-app frame: blockMainThreadForDemo"))
        #expect(output.contains("[crash] SIGSEGV in crashBySegmentationFault"), "\(output)")
        #expect(output.contains("/demo/api/checkout/:id: 6 requests, 2 failed"), "\(output)")

        // Two releases: 1.0.0 with the hang and the crash, a healthier 1.1.0.
        #expect(output.contains("release 1.1.0 (110): 2 session(s) (2 exited)"), "\(output)")
        #expect(output.contains("release 1.0.0 (100): "), "\(output)")

        // The history: two simulated days before today, replayed through the ingest API, every event tagged.
        #expect(output.contains("replaying 2 day(s) of a simulated app population (seed 1, every event tagged simulated)"), "\(output)")
        let today = Int64((Date().timeIntervalSince1970 / 86_400).rounded(.down))
        let client = HTTPTestClient(port: port)
        let admin = ["Authorization": "Bearer \(TestServer.adminToken)"]
        let trend = (try client.get("/api/v1/aggregates/launch?project=demo&range=7d", headers: admin).json["trend"] as? [[String: Any]]) ?? []
        let days = Set(trend.compactMap { $0["day"] as? String })
        #expect(days.count == 3 && days.contains(DashboardFilter.dayString(today - 2)), "a cold-launch point per day: \(days)")
        let store = try ServerStore.open(.sqlite(path: directory.appendingPathComponent("demo.sqlite").path), connections: 1)
        let (simulated, past) = try store.database.read { connection in
            (try connection.scalar("SELECT COUNT(*) FROM apm_event WHERE tags_json LIKE '%\"simulated\":\"true\"%'").int ?? 0,
             try connection.scalar("SELECT COUNT(*) FROM apm_event WHERE occurred_at < ?", [.integer(today * 86_400_000)]).int ?? 0)
        }
        #expect(simulated > 2000 && simulated == past, "every event before today is simulated and tagged: \(simulated) of \(past)")
        // The live runs' numbers: today's events only (the history ends yesterday).
        let scope = "&range=custom&from=\(DashboardFilter.dayString(today))&to=\(DashboardFilter.dayString(today + 1))"
        let releases = (try client.get("/api/v1/releases?project=demo" + scope, headers: admin).json["releases"] as? [[String: Any]] ?? [])
            .compactMap { $0["total"] as? [String: Any] }
        #expect(releases.compactMap { $0["version"] as? String } == ["1.1.0", "1.0.0"], "\(releases)")
        if releases.count == 2 {
            #expect((releases[1]["outcomes"] as? [String: Any])?["crashed"] as? Int == 1, "the crash's session: \(releases[1])")
            #expect(releases[0]["crashFreeUsersPercent"] as? Double == 100)
            #expect((releases[0]["hangRateSecondsPerHour"] as? Double ?? 0) > 0, "1.1.0's 400 ms hang in its foreground time")
        }
        let hangs = try client.get("/api/v1/issues?kind=hang&project=demo" + scope, headers: admin)
        let hangID = try #require((hangs.json["issues"] as? [[String: Any]])?.first?["id"] as? Int)
        let crashes = try client.get("/api/v1/issues?kind=crash&project=demo" + scope, headers: admin)
        let crash = try #require((crashes.json["issues"] as? [[String: Any]])?.first)
        let crashID = try #require(crash["id"] as? Int)
        #expect((crash["title"] as? String)?.contains("crashBySegmentationFault") == true, "\(crash)")
        let network = try client.get("/api/v1/aggregates/network?project=demo" + scope, headers: admin)
        let templates = (network.json["templates"] as? [[String: Any]] ?? []).compactMap { $0["template"] as? String }
        let api = "http://localhost:\(port)/demo/api"
        #expect(Set(templates) == ["POST \(api)/checkout/:id", "GET \(api)/products/:id", "GET \(api)/echo"],
                "only the demo backend's requests, never the uploads: \(templates)")

        let profile = try TemporaryDirectory(prefix: "chromium")
        let base = "http://127.0.0.1:\(port)"
        let login = try Self.load("\(base)/login?token=\(TestServer.adminToken)&next=/issues", profile: profile.url)
        #expect(login.dom.contains("<h1>Issues</h1>"), "the login link did not lead to the issues page")
        #expect(login.dom.contains("blockMainThreadForDemo"))
        #expect(login.dom.contains("crashBySegmentationFault"))
        for path in ["/", "/releases", "/issues", "/issues/\(hangID)", "/issues/\(crashID)", "/hangs", "/network", "/launch",
                     "/frames", "/compare", "/symbols"] {
            let (dom, problems) = try Self.load(base + path, profile: profile.url)
            #expect(problems.isEmpty, "\(path): \(problems)")
            #expect(dom.contains("</main>"), "\(path) did not render")
            #expect(!dom.contains("Log in</h1>"), "\(path) asked for a login")
            switch path {
            case "/issues/\(hangID)":
                // The hot frame, symbolicated from the uploaded binary, is highlighted as the app's own.
                #expect(dom.contains("<tr class=\"inapp\"><td class=\"num\">0</td><td class=\"fn\">blockMainThreadForDemo"), "\(dom.prefix(4000))")
                #expect(dom.contains("DemoWorkload.swift"))
            case "/issues/\(crashID)":
                #expect(dom.contains("<tr class=\"inapp\"><td class=\"num\">0</td><td class=\"fn\">crashBySegmentationFault"), "\(dom.prefix(4000))")
                #expect(dom.contains("CrashKinds.swift"))
            case "/":
                #expect(dom.contains("Latest release: 1.1.0 (110)"), "\(dom.prefix(4000))")
                #expect(dom.contains("crash-free users"))
            case "/releases":
                #expect(dom.contains("<td>1.1.0 (110)</td>") && dom.contains("<td>1.0.0 (100)</td>"), "\(dom.prefix(6000))")
                #expect(dom.contains("1.1.0 (110) against 1.0.0 (100)"))
                #expect(dom.contains("class=\"badge better\""), "the crash-free change is highlighted")
                #expect(dom.contains("<svg"), "the trends are drawn")
            case "/hangs":
                // The live hang's sampled stacks, symbolicated from the uploaded binary, the hot frame the app's own.
                #expect(dom.contains("<svg class=\"chart flame\""), "\(dom.prefix(4000))")
                #expect(dom.contains("<rect class=\"inapp\"") && dom.contains("blockMainThreadForDemo"))
            case "/network":
                #expect(dom.contains(">GET \(api)/products/:id</a>"), "\(dom.prefix(4000))")
                #expect(dom.contains(">POST \(api)/checkout/:id</a>"))
            default:
                break
            }
        }
        // Under .build (ignored by git), so a test run never changes a tracked file.
        let results = BuildProducts.packageRoot.appendingPathComponent(".build/test-artifacts", isDirectory: true)
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        let shot = results.appendingPathComponent("dashboard-issues.png")
        try? FileManager.default.removeItem(at: shot)
        _ = try Self.load(base + "/issues", profile: profile.url, screenshot: shot)
        let size = (try FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size > 10_000, "the screenshot is missing or empty")
        #expect(demoSeconds < 150, "the quick demo with two days of history took \(demoSeconds) s")
    }
}

/// The issue workflow in a real browser: the resolve button on the issue page, then an event
/// from a later version, then the regression mark on the issue page and in the list.
@Suite("issue workflow in a browser")
struct IssueWorkflowBrowserTests {
    /// A page of the test's own (same origin as the dashboard) whose script opens `path` in a
    /// window, fills the `version` field of the form of `button` (when given) and clicks that
    /// button like a person would, then copies the page the browser landed on into a textarea
    /// that `--dump-dom` shows. (The dashboard itself forbids frames, so a window it is.)
    static func clicker(path: String, button: String, version: String?) -> String {
        func literal(_ text: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: [text], options: []), as: UTF8.self)
                .dropFirst().dropLast().description
        }
        return """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>clicker</title></head><body><textarea id="after"></textarea><script>
            const w = window.open(\(literal(path)), "dashboard");
            const button = \(literal(button)), version = \(version.map(literal) ?? "null");
            let clicked = false, steps = 0;
            // Each wait is a request to the server (which answers after 200 ms): while it is
            // pending the page's virtual time stands still, so --dump-dom waits for the window.
            function next() { if (++steps < 75) fetch("/test/wait").then(step, step); }
            function step() {
              try {
                const doc = w.document;
                const target = doc.querySelector('button[value="' + button + '"]');
                if (!clicked && doc.readyState === "complete" && target) {
                  const input = doc.querySelector('form[data-action="' + button + '"] input[name="version"]');
                  if (input && version !== null) input.value = version;
                  clicked = true;
                  target.click();
                } else if (clicked && doc.readyState === "complete" && doc.body && doc.body.innerHTML.indexOf("<h2>Audit</h2>") >= 0 && !target) {
                  document.getElementById("after").textContent = doc.documentElement.outerHTML;
                  return;
                }
              } catch (error) { document.getElementById("after").textContent = "error: " + error; }
              next();
            }
            next();
            </script></body></html>
            """
    }

    static func hang(version: String) -> Event {
        var event = ProcessingTestsFixture.hang(index: 0)
        event.id = UUID()
        event.time = Date().addingTimeInterval(-30)
        event.app.version = version
        return event
    }

    @Test("resolve an issue with its button, post an event from a later version, see it marked regressed")
    func resolveThenRegress() throws {
        let clickRoute = HTTPRoute("GET", "/test/click") { request in
            // Without the dashboard's Content-Security-Policy: this page's script fetches.
            HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")],
                         body: Data(Self.clicker(path: request.query["path"] ?? "/", button: request.query["button"] ?? "",
                                                 version: request.query["version"]).utf8))
        }
        let waitRoute = HTTPRoute("GET", "/test/wait") { _ in
            Thread.sleep(forTimeInterval: 0.2)
            return .text("ok")
        }
        let server = try TestServer(.sqlite, configure: { $0.workers = 1 }, extraRoutes: [clickRoute, waitRoute])
        #expect(try server.postEvents([Self.hang(version: "1.0")]).status == 200)
        let issue = try #require(try server.store.issues(projectID: server.project.id).first)
        let base = "http://127.0.0.1:\(server.app.port)"
        let profile = try TemporaryDirectory(prefix: "chromium")
        let login = try BrowserTests.load("\(base)/login?token=\(TestServer.adminToken)&next=/issues/\(issue.id)", profile: profile.url)
        #expect(login.dom.contains("Resolve in version"), "\(login.dom.prefix(3000))")
        #expect(login.problems.isEmpty, "\(login.problems)")

        let clicked = try BrowserTests.load(
            "\(base)/test/click?path=/issues/\(issue.id)&button=resolve-version&version=1.0", profile: profile.url,
            extra: ["--disable-popup-blocking", "--virtual-time-budget=5000"])
        #expect(clicked.dom.contains("resolved in 1.0"), "\(clicked.dom.prefix(3000))")
        #expect(try server.store.issue(projectID: server.project.id, id: issue.id)?.summary.state.resolvedIn == "1.0")
        let audit = try server.store.issueAudit(projectID: server.project.id, issueID: issue.id)
        #expect(audit.first?.actor.hasPrefix("dashboard session ") == true, "\(audit)")

        #expect(try server.postEvents([Self.hang(version: "1.0")]).status == 200)
        #expect(try BrowserTests.load("\(base)/issues/\(issue.id)", profile: profile.url).dom.contains("resolved in 1.0"))
        #expect(try server.postEvents([Self.hang(version: "1.1")]).status == 200)
        let page = try BrowserTests.load("\(base)/issues/\(issue.id)", profile: profile.url)
        #expect(page.problems.isEmpty, "\(page.problems)")
        #expect(page.dom.contains("<span class=\"regression\">Regressed in <b>1.1</b>"), "\(page.dom.prefix(3000))")
        let list = try BrowserTests.load("\(base)/issues", profile: profile.url)
        #expect(list.dom.contains("regressed in 1.1"), "\(list.dom.prefix(3000))")
    }
}
