import Foundation
import VigilCommandLine
import VigilCore
import VigilServer
import VigilTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `vigil-bench dashboard`: how long the dashboard's pages take to render on a large SQLite
/// database, without and with filters. A server in this process holds `--events` events
/// (default 1,000,000) spread over 30 days, 5 releases, 6 OS versions, 8 device models and 6
/// pages, bulk-loaded and then processed into roll-ups and issues as ingest would; every page
/// is fetched over loopback HTTP with each filter, `--samples` times after two warm-ups, and
/// the p95 of each (page, filter) is reported. Goal: p95 < 200 ms everywhere. Writes
/// `bench-results/dashboard.json`.
enum DashboardBenchmark: Command {
    static let name = "dashboard"
    static let summary = "dashboard page render p95, without and with filters, on 1,000,000 events in SQLite"
    static let usage = """
        usage: vigil-bench dashboard [--events N] [--samples N] [--output FILE] [--work-dir DIR] [--keep-database]

        Seeds --events (default 1,000,000) events over the last 30 days into a fresh SQLite database:
        40 % requests, 20 % frame windows, 10 % spans, 8 % logs, 8 % launches, 7 % hangs, 5 % sessions,
        2 % crashes, from 5 releases, 6 OS versions, 8 device models and 6 pages. Processes them (roll-ups,
        issues), then fetches every dashboard page with no filter (the last 30 days), the last 7 days,
        one release, one OS version, one device model, one page, and release + OS + device together,
        --samples times each (default 15) after two warm-ups. Reports each page and filter's p50, p95
        and max in ms. Goal: p95 < 200 ms for every page and filter. --keep-database leaves the SQLite
        file in the work directory (to read query plans), instead of deleting it at the end.
        """

    static let releases = ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0"]
    static let osVersions = ["16.7", "17.4", "17.5", "17.6", "18.0", "18.1"]
    static let devices = ["iPhone12,1", "iPhone13,2", "iPhone14,2", "iPhone14,5", "iPhone15,2", "iPhone15,4", "iPhone16,1", "iPad13,4"]
    static let pages = ["HomeViewController", "SearchViewController", "ProductViewController", "CartViewController",
                        "CheckoutViewController", "ProfileViewController"]
    static let templates = ["/products", "/products/:id", "/search", "/cart/:id/items", "/checkout/:id", "/recommendations"]

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = ["events", "samples", "output", "work-dir"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: ["keep-database"], allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        let keep = arguments.flag("keep-database")
        let eventCount = try arguments.number("events", default: 1_000_000)
        let samples = try arguments.number("samples", default: 15)
        guard eventCount >= 1000, samples >= 1 else { throw UsageError("--events ≥ 1000, --samples ≥ 1") }
        let output = arguments.value("output") ?? "bench-results/dashboard.json"
        let work = URL(fileURLWithPath: arguments.value("work-dir") ?? NSTemporaryDirectory())
            .appendingPathComponent("vigil-bench-dashboard-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer {
            if keep { ServerBenchmark.log("dashboard: database kept in \(work.path)") } else { try? FileManager.default.removeItem(at: work) }
        }

        var options = ServerOptions(database: .sqlite(path: work.appendingPathComponent("dashboard.sqlite").path),
                                    spoolDirectory: work.appendingPathComponent("spool").path)
        options.adminToken = "bench"
        options.workers = 0
        options.http = HTTPServerConfiguration(port: 0, threads: 4)
        try FileManager.default.createDirectory(atPath: options.spoolDirectory, withIntermediateDirectories: true)
        let app = try ServerApplication.start(options)
        defer { app.stop() }
        let store = app.context.store
        let project = app.firstStart.defaultProject

        let seedStart = Date()
        try seed(store, projectID: project.id, count: eventCount)
        let loadSeconds = Date().timeIntervalSince(seedStart)
        ServerBenchmark.log(String(format: "dashboard: loaded %d events in %.1f s; processing them", eventCount, loadSeconds))
        let processStart = Date()
        let processed = try EventProcessor(store: store, symbols: SymbolTableCache(engine: nil)).drain()
        let processSeconds = Date().timeIntervalSince(processStart)
        ServerBenchmark.log(String(format: "dashboard: processed %d events in %.1f s", processed, processSeconds))
        let databaseBytes = try store.database.sizeInBytes()

        let issue = try store.issues(projectID: project.id, kind: "hang", limit: 1).first?.id ?? 1
        let paths = ["/", "/releases", "/issues", "/issues/\(issue)", "/hangs", "/network", "/network/breakdown", "/launch",
                     "/frames", "/compare", "/symbols"]
        let filters: [(name: String, query: String)] = [
            ("none (last 30 days)", ""), ("last 7 days", "range=7d"), ("release", "release=3.2.0"), ("OS version", "os=17.5"),
            ("device model", "device=iPhone14%2C2"), ("page", "page=CheckoutViewController"),
            ("release + OS + device", "release=3.2.0&os=17.5&device=iPhone14%2C2"),
        ]
        let client = HTTPTestClient(port: app.port)
        let headers = ["Authorization": "Bearer bench"]
        var rows: [[String: Any]] = []
        var worst = 0.0
        var allMet = true
        for path in paths {
            for filter in filters {
                let url = filter.query.isEmpty ? path : path + (path.contains("?") ? "&" : "?") + filter.query
                var times: [Double] = []
                var bytes = 0
                for round in 0..<(samples + 2) {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let answer = try client.get(url, headers: headers)
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                    guard answer.status == 200 else { throw BenchError("GET \(url): HTTP \(answer.status) \(answer.text.prefix(200))") }
                    bytes = answer.body.count
                    if round >= 2 { times.append(ms) }
                }
                let distribution = Distribution(times)
                let p95 = distribution.percentile(0.95) ?? 0
                worst = max(worst, p95)
                allMet = allMet && p95 < 200
                rows.append(["page": path, "filter": filter.name, "query": filter.query, "p50Ms": distribution.median ?? 0,
                             "p95Ms": p95, "maxMs": distribution.sorted.last ?? 0, "bytes": bytes, "met": p95 < 200])
                ServerBenchmark.log(String(format: "dashboard: %@ %@: p50 %.1f ms, p95 %.1f ms", path, filter.name,
                                           distribution.median ?? 0, p95))
            }
        }
        let result: [String: Any] = [
            "suite": "dashboard",
            "config": ["events": eventCount, "samples": samples, "days": 30, "database": "sqlite", "releases": releases.count,
                       "osVersions": osVersions.count, "devices": devices.count, "pages": pages.count,
                       "cores": ProcessInfo.processInfo.activeProcessorCount] as [String: Any],
            "seed": ["loadSeconds": loadSeconds, "processSeconds": processSeconds, "databaseBytes": databaseBytes],
            "renders": rows,
            "worstP95Ms": worst,
            "goals": ["renderP95MsMax": 200],
            "met": ["renderP95Under200Ms": allMet],
        ]
        try ResultFile.write(result, to: output)
        ServerBenchmark.log(String(format: "dashboard: worst p95 %.1f ms; wrote %@", worst, output))
        return 0
    }

    /// Bulk-loads `count` events (waiting for processing), 20,000 per transaction, spread evenly
    /// over the last 30 days; the mix and the spread over releases, OS versions, devices and
    /// pages are fixed by the index (deterministic).
    static func seed(_ store: ServerStore, projectID: Int64, count: Int) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let span: Int64 = 30 * 86_400_000
        let sessions = (0..<5000).map { index in String(format: "00000000-0000-4000-8000-%012X", index) }
        var generator = SeededGenerator(seed: 7)
        var made = 0
        while made < count {
            let chunk = min(20_000, count - made)
            var records: [EventRecord] = []
            records.reserveCapacity(chunk)
            for offset in 0..<chunk {
                let index = made + offset
                let occurred = now - span + span * Int64(index) / Int64(count) - 60_000
                let slot = index % 100
                let session = sessions[Int(generator.next() % UInt64(sessions.count))]
                let device = Int(generator.next() % UInt64(devices.count))
                // Newer releases take later days; OS versions follow the device.
                let release = releases[min(releases.count - 1, (index * releases.count / count + Int(generator.next() % 2)))]
                let os = osVersions[(device + Int(generator.next() % 3)) % osVersions.count]
                let page = pages[Int(generator.next() % UInt64(pages.count))]
                let value = Double(generator.next() % 10_000) / 10_000
                let type: String
                var duration: Double?
                let payload: String
                switch slot {
                case 0..<40:
                    type = "network"
                    let total = 40 + value * 900
                    duration = total
                    payload = #"{"method":"\#(slot % 5 == 0 ? "POST" : "GET")","urlTemplate":"https://api.example.com\#(templates[slot % templates.count])","#
                        + #""host":"api.example.com","status":\#(slot % 17 == 0 ? 503 : 200),"bytesSent":600,"bytesReceived":4096,"#
                        + #""timings":{"dns":8,"connect":22,"tls":35,"request":1,"ttfb":\#(total * 0.6),"response":\#(total * 0.2),"total":\#(total)},"#
                        + #""reusedConnection":false,"protocol":"h2"}"#
                case 40..<60:
                    type = "frames"
                    let start = Timestamp.format(Date(timeIntervalSince1970: Double(occurred) / 1000))
                    let end = Timestamp.format(Date(timeIntervalSince1970: Double(occurred + 5000) / 1000))
                    payload = #"{"page":"\#(page)","windowStart":"\#(start)","windowEnd":"\#(end)","frames":290,"fps":58,"refreshRate":60,"#
                        + #""dropped":\#(Int(value * 30)),"slow":\#(Int(value * 4)),"severe":\#(slot == 41 ? 1 : 0),"frozen":\#(slot == 42 ? 1 : 0)}"#
                case 60..<70:
                    type = "span"
                    let start = Timestamp.format(Date(timeIntervalSince1970: Double(occurred) / 1000))
                    let end = Timestamp.format(Date(timeIntervalSince1970: Double(occurred + 120) / 1000))
                    duration = 120
                    payload = #"{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7","name":"db.query","kind":"client","#
                        + #""start":"\#(start)","end":"\#(end)","status":"ok","attributes":{}}"#
                case 70..<78:
                    type = "log"
                    payload = #"{"level":"info","message":"checkout step \#(slot)","attributes":{}}"#
                case 78..<86:
                    type = "launch"
                    let ttid = 500 + value * 1500
                    duration = ttid
                    let start = Timestamp.format(Date(timeIntervalSince1970: Double(occurred) / 1000 - ttid / 1000))
                    payload = #"{"kind":"\#(slot < 84 ? "cold" : "warm")","processStart":"\#(start)","preMainMs":\#(ttid * 0.3),"#
                        + #""mainToDidFinishMs":\#(ttid * 0.4),"ttidMs":\#(ttid),"ttfdMs":\#(ttid + 400)}"#
                case 86..<93:
                    type = "hang"
                    let hang = 250 + value * 3000
                    duration = hang
                    let start = Timestamp.format(Date(timeIntervalSince1970: Double(occurred) / 1000))
                    let end = Timestamp.format(Date(timeIntervalSince1970: Double(occurred) / 1000 + hang / 1000))
                    payload = #"{"start":"\#(start)","end":"\#(end)","durationMs":\#(hang),"kind":"fullyBlocking","thresholdMs":250,"#
                        + #""runLoopActivity":"beforeSources","stacks":[]}"#
                case 93..<98:
                    type = "session"
                    let length = 30_000 + value * 600_000
                    duration = length
                    let start = Timestamp.format(Date(timeIntervalSince1970: Double(occurred) / 1000 - length / 1000))
                    let end = Timestamp.format(Date(timeIntervalSince1970: Double(occurred) / 1000))
                    payload = #"{"start":"\#(start)","end":"\#(end)","durationMs":\#(length),"foregroundMs":\#(length * 0.8),"#
                        + #""outcome":"\#(value < 0.01 ? "crashed" : "exited")","reasons":[]}"#
                default:
                    type = "crash"
                    payload = #"{"signal":"\#(slot == 98 ? "SIGSEGV" : "SIGABRT")","threads":[{"crashed":true,"name":"main","frames":[]}]}"#
                }
                records.append(EventRecord(
                    id: String(format: "00000000-0000-4000-9000-%012X", index), type: type, occurredAt: occurred,
                    appID: "com.example.shop", appVersion: release, appBuild: String(release.filter(\.isNumber)), os: "iOS",
                    osVersion: os, deviceModel: devices[device], page: page, sessionID: session, durationMs: duration,
                    tagsJSON: "{}", payloadJSON: payload, imagesJSON: nil,
                    contextJSON: #"{"page":"\#(page)","appState":"foreground","network":"\#(value < 0.7 ? "wifi" : "cellular")"}"#,
                    userKey: "i:" + session))
            }
            try store.bulkLoadEvents(projectID: projectID, records, receivedAt: Date(), processed: false)
            made += chunk
        }
    }
}
