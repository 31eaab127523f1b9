import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// The dashboard's time range and filters: parsing, rendering, and their SQL.
@Suite("dashboard filter")
struct DashboardFilterTests {
    @Test("no parameters mean the last 30 days and nothing else; that filter renders as an empty query")
    func defaults() throws {
        let filter = try DashboardFilter(query: [:])
        #expect(filter.range == .recent(hours: 720))
        #expect(!filter.narrows && !filter.needsRawEvents)
        #expect(filter.queryString.isEmpty)
        #expect(try DashboardFilter(query: ["release": "", "os": " ", "range": ""]) == filter, "empty form fields count as absent")
    }

    @Test("ranges and filters parse and render back to the same query", arguments: [
        "range=24h", "range=7d", "range=all", "range=36h", "range=custom&from=2026-11-01&to=2026-11-14",
        "range=custom&from=2026-11-01T08%3A30%3A00.000Z&to=2026-11-02",
        "range=7d&release=1.0.0&os=17.5&device=iPhone12%2C1&page=Checkout%20%26%20Pay",
    ])
    func roundTrip(query: String) throws {
        let filter = try DashboardFilter(query: Self.parse(query))
        #expect(filter.queryString == query)
        #expect(try DashboardFilter(query: Self.parse(filter.queryString)) == filter)
    }

    @Test("days=N, version= and from/to without range= are read as their newer spellings")
    func olderSpellings() throws {
        #expect(try DashboardFilter(query: ["days": "7"]).range == .recent(hours: 168))
        #expect(try DashboardFilter(query: ["version": "3.2.0"]).release == "3.2.0")
        let custom = try DashboardFilter(query: ["from": "2026-11-01", "to": "2026-11-01"])
        #expect(custom.range == .custom(from: Date(timeIntervalSince1970: 1_793_491_200), to: Date(timeIntervalSince1970: 1_793_577_600)),
                "to includes its whole day")
        #expect(custom.rangeLabel == "2026-11-01 – 2026-11-01")
    }

    @Test("bad input is a typed error naming the parameter", arguments: [
        (["range": "week"], "range"), (["range": "400d"], "range"), (["range": "0h"], "range"), (["days": "x"], "days"),
        (["from": "2026-13-01", "to": "2026-12-01"], "from"), (["from": "2026-02-30", "to": "2026-03-01"], "from"),
        (["range": "custom", "to": "2026-12-01"], "from"), (["range": "custom", "from": "2026-12-01"], "to"),
        (["from": "2026-12-02", "to": "2026-12-01"], "to"), (["os": String(repeating: "x", count: 201)], "os"),
        (["device": "a\u{7}b"], "device"),
    ])
    func errors(query: [String: String], parameter: String) {
        let error = #expect(throws: DashboardFilterError.self) { _ = try DashboardFilter(query: query) }
        #expect(error?.parameter == parameter)
        #expect(error.map { "\($0)".hasPrefix(parameter) } == true)
    }

    @Test("a chip's removal keeps the other filters; removing the range goes back to the default")
    func removing() throws {
        let filter = try DashboardFilter(query: ["range": "7d", "release": "1.0", "os": "17.5"])
        #expect(filter.chips.map(\.facet) == [.range, .release, .os])
        #expect(filter.removing(.os).queryString == "range=7d&release=1.0")
        #expect(filter.removing(.range).queryString == "release=1.0&os=17.5")
    }

    @Test("SQL conditions bind every value as a parameter; roll-ups get the whole UTC days the range touches")
    func sql() throws {
        let now = Date(timeIntervalSince1970: 1_796_000_000)  // 2026-11-30T03:33:20Z, day 20787
        let filter = try DashboardFilter(query: ["range": "24h", "release": "1.0'; DROP TABLE x", "page": "Home"])
        let events = filter.eventConditions(now: now, alias: "e")
        #expect(events.sql == " AND e.occurred_at >= ? AND e.app_version = ? AND e.page = ?")
        #expect(events.arguments == [.integer(1_796_000_000_000 - 86_400_000), .text("1.0'; DROP TABLE x"), .text("Home")])
        let rollups = filter.rollupConditions(now: now, pageIsDimension: true)
        #expect(rollups.sql == " AND day >= ? AND app_version = ? AND dimension = ?")
        #expect(rollups.arguments == [.integer(20786), .text("1.0'; DROP TABLE x"), .text("Home")])
        let custom = try DashboardFilter(query: ["from": "2026-11-01", "to": "2026-11-03"])
        #expect(custom.days(now: now).first == 20758 && custom.days(now: now).last == 20760)
    }

    static func parse(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            result[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return result
    }
}

/// Recent events spread over releases, OS versions, devices, pages and days, for filter tests.
enum FilterFixture {
    /// 1.0.0 / iOS 17.5 / iPhone12,1 on Checkout two days ago (3 hangs of 1 s); 1.1.0 / 18.1 /
    /// iPhone16,1 on Home two hours ago (2 hangs of 0.5 s); 1.0.0 / 18.1 / iPhone16,1 on
    /// Checkout ten days ago (1 hang of 3 s); each group with a launch, a request and a frame window.
    static func events(now: Date) -> [Event] {
        let groups: [(version: String, os: String, model: String, page: String, hoursAgo: Double, hangs: Int, hangMs: Double)] = [
            ("1.0.0", "17.5", "iPhone12,1", "Checkout", 48, 3, 1000),
            ("1.1.0", "18.1", "iPhone16,1", "Home", 2, 2, 500),
            ("1.0.0", "18.1", "iPhone16,1", "Checkout", 240, 1, 3000),
        ]
        var events: [Event] = []
        for (number, group) in groups.enumerated() {
            let time = now.addingTimeInterval(-group.hoursAgo * 3600)
            let app = AppInfo(id: "com.example.shop", version: group.version, build: "1")
            let device = DeviceInfo(model: group.model, os: "iOS", osVersion: group.os, arch: "arm64")
            let session = UUID()
            func event(_ offset: Double, _ payload: EventPayload) -> Event {
                Event(time: time.addingTimeInterval(offset), session: session, app: app, device: device,
                      context: EventContext(page: group.page, network: "wifi"), payload: payload)
            }
            for index in 0..<group.hangs {
                let start = time.addingTimeInterval(Double(index))
                events.append(event(Double(index), .hang(HangPayload(start: start, end: start.addingTimeInterval(group.hangMs / 1000),
                                                                     durationMs: group.hangMs, kind: .fullyBlocking, thresholdMs: 250,
                                                                     runLoopActivity: "beforeSources", stacks: []))))
            }
            events.append(event(10, .launch(LaunchPayload(kind: .cold, processStart: time, ttidMs: 500 + Double(number) * 500,
                                                          ttfdMs: 2000))))
            events.append(event(11, .network(NetworkPayload(method: "GET", urlTemplate: "https://api.example.com/p/:id",
                                                            host: "api.example.com", status: number == 0 ? 503 : 200,
                                                            bytesSent: 0, bytesReceived: 10,
                                                            timings: NetworkTimings(dns: 10, ttfb: 100, total: 200 + Double(number) * 100)))))
            events.append(event(12, .frames(FramesPayload(page: group.page, windowStart: time, windowEnd: time.addingTimeInterval(1),
                                                          frames: 60, fps: 60, refreshRate: 60, dropped: 6 * (number + 1),
                                                          slow: number + 1, severe: 0, frozen: number == 0 ? 1 : 0))))
        }
        return events
    }
}

extension BothStores {
    /// Filters applied in SQL on both databases, from roll-ups or from the events.
    @Suite("dashboard filters on the stores")
    struct DashboardFilterStoreTests {
        @Test("time range, release, OS version, device model and page change the numbers of every view", arguments: StoreKind.allCases)
        func filtersChangeNumbers(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let now = Date()
            let answer = try server.postEvents(FilterFixture.events(now: now))
            try #require(answer.status == 200 && (answer.json["rejected"] as? [Any])?.isEmpty == true, "\(answer)")
            try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
            let insights = server.app.context.insights
            let project = server.project.id
            func filter(_ query: [String: String]) throws -> DashboardFilter { try DashboardFilter(query: query) }
            func hangs(_ query: [String: String]) throws -> [String: Int64] {
                Dictionary(uniqueKeysWithValues: try insights.hangs(projectID: project, filter: filter(query), now: now).map { ($0.page, $0.hangs) })
            }
            #expect(try hangs(["range": "all"]) == ["Checkout": 4, "Home": 2])
            #expect(try hangs([:]) == ["Checkout": 4, "Home": 2], "ten days ago is within the last 30 days")
            #expect(try hangs(["range": "7d"]) == ["Checkout": 3, "Home": 2])
            #expect(try hangs(["range": "24h"]) == ["Home": 2])
            #expect(try hangs(["release": "1.0.0"]) == ["Checkout": 4])
            #expect(try hangs(["page": "Home"]) == ["Home": 2], "page is the hangs' roll-up dimension")
            #expect(try hangs(["os": "17.5"]) == ["Checkout": 3], "OS version reads the events")
            #expect(try hangs(["device": "iPhone16,1"]) == ["Checkout": 1, "Home": 2])
            #expect(try hangs(["device": "iPhone16,1", "release": "1.0.0"]) == ["Checkout": 1])
            #expect(try hangs(["os": "16.0"]).isEmpty)
            let day = DashboardFilter.dayString(Int64((now.timeIntervalSince1970 - 240 * 3600) / 86_400))
            #expect(try hangs(["from": day, "to": day]) == ["Checkout": 1], "a custom range of the day ten days ago")

            // Roll-ups and events agree where both can serve the filter.
            for query in [["range": "all"], ["release": "1.0.0"], ["range": "7d", "release": "1.1.0"]] {
                let fromRollups = try insights.hangs(projectID: project, filter: filter(query), now: now)
                let fromEvents = try EventAggregates(store: server.store).hangs(projectID: project, filter: filter(query), now: now)
                #expect(fromRollups.map(\.page) == fromEvents.map(\.page) && fromRollups.map(\.hangs) == fromEvents.map(\.hangs)
                        && fromRollups.map(\.totalMs) == fromEvents.map(\.totalMs), "\(query)")
                let framesR = try insights.frames(projectID: project, filter: filter(query), now: now)
                let framesE = try EventAggregates(store: server.store).frames(projectID: project, filter: filter(query), now: now)
                #expect(framesR == framesE, "\(query)")
                let networkR = try insights.network(projectID: project, filter: filter(query), now: now)
                let networkE = try EventAggregates(store: server.store).network(projectID: project, filter: filter(query), now: now)
                #expect(networkR.map(\.requests) == networkE.map(\.requests) && networkR.map(\.errors) == networkE.map(\.errors)
                        && networkR.map(\.phases) == networkE.map(\.phases), "\(query)")
                let launchR = try insights.launches(projectID: project, filter: filter(query), now: now)
                let launchE = try EventAggregates(store: server.store).launches(projectID: project, filter: filter(query), now: now)
                #expect(launchR.versions == launchE.versions && launchR.trend == launchE.trend, "\(query)")
            }

            // The other views narrowed by OS version (events) and by page where it is not the roll-up dimension.
            let network = try insights.network(projectID: project, filter: filter(["os": "17.5"]), now: now)
            #expect(network.map(\.requests) == [1] && network.first?.errors == 1)
            #expect(try insights.network(projectID: project, filter: filter(["page": "Home"]), now: now).first?.requests == 1)
            let frames = try insights.frames(projectID: project, filter: filter(["device": "iPhone16,1"]), now: now)
            #expect(frames.map(\.page).sorted() == ["Checkout", "Home"] && frames.allSatisfy { $0.frozen == 0 })
            let launches = try insights.launches(projectID: project, filter: filter(["os": "18.1"]), now: now)
            #expect(launches.versions.map(\.version) == ["1.1.0", "1.0.0"] && launches.trend.count == 2)
            #expect(try insights.crashes(projectID: project, filter: filter(["os": "18.1"]), now: now).isEmpty)
            let overview = try insights.overview(projectID: project, filter: filter(["device": "iPhone12,1"]), now: now)
            #expect(overview.eventsByType == ["hang": 3, "launch": 1, "network": 1, "frames": 1], "\(overview.eventsByType)")
            let recent = try insights.overview(projectID: project, filter: filter(["range": "24h"]), now: now)
            #expect(recent.eventsByType["hang"] == 2)

            // Issues are counted over the matching events only.
            let all = try insights.issues(projectID: project, filter: filter(["range": "all"]), now: now)
            let issueEvents = all.reduce(0) { $0 + $1.events }
            #expect(issueEvents == 6)
            let narrowed = try insights.issues(projectID: project, filter: filter(["os": "17.5"]), now: now)
            #expect(narrowed.reduce(0) { $0 + $1.events } == 3)
            #expect(try insights.issues(projectID: project, filter: filter(["range": "24h", "release": "1.0.0"]), now: now).isEmpty)

            // The values offered in the filter menus, without scanning the events.
            let aggregates = EventAggregates(store: server.store)
            #expect(try aggregates.distinctValues(projectID: project, column: "os_version") == ["17.5", "18.1"])
            #expect(try aggregates.distinctValues(projectID: project, column: "device_model", limit: 1) == ["iPhone12,1"])
            #expect(try server.store.rollupDimensions(projectID: project, metrics: ["hang", "frames.windows"]) == ["Checkout", "Home"])
        }

        @Test("a comparison's figures are each version's own views under the filter, whether read from roll-ups or events",
              arguments: StoreKind.allCases)
        func compareMatchesEachVersionsViews(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let now = Date()
            #expect(try server.postEvents(FilterFixture.events(now: now)).status == 200)
            try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
            let insights = server.app.context.insights
            let project = server.project.id
            struct Figure: Hashable { var area: String; var dimension: String; var base: Double?; var target: Double? }
            for query in [["range": "all"], ["os": "18.1"], ["device": "iPhone16,1"], ["page": "Checkout"], ["page": "Home"],
                          ["os": "18.1", "device": "iPhone16,1", "release": "1.1.0"], ["os": "17.5"]] {
                let filter = try DashboardFilter(query: query)
                func side(_ version: String) throws -> [String: [String: Double]] {
                    var narrowed = filter
                    narrowed.release = version
                    let launches = try insights.launches(projectID: project, filter: narrowed, now: now).versions
                    let count = Double(launches.reduce(0) { $0 + $1.launches })
                    func rate(_ value: Int64) -> Double { count > 0 ? Double(value) / count : Double(value) }
                    var figures: [String: [String: Double]] = [:]
                    for stat in try insights.hangs(projectID: project, filter: narrowed, now: now) { figures["hangs", default: [:]][stat.page] = rate(stat.hangs) }
                    for (name, value) in try insights.crashes(projectID: project, filter: narrowed, now: now) { figures["crashes", default: [:]][name] = rate(value) }
                    for stat in try insights.network(projectID: project, filter: narrowed, now: now) { figures["network", default: [:]][stat.template] = stat.p95Ms }
                    for stat in launches { figures["launch", default: [:]][stat.kind] = stat.ttidP50Ms }
                    for stat in try insights.frames(projectID: project, filter: narrowed, now: now) { figures["frames", default: [:]][stat.page] = stat.slowRatio }
                    return figures
                }
                let base = try side("1.0.0"), target = try side("1.1.0")
                var expected = Set<Figure>()
                for area in Set(base.keys).union(target.keys) {
                    for dimension in Set((base[area] ?? [:]).keys).union((target[area] ?? [:]).keys) {
                        expected.insert(Figure(area: area, dimension: dimension, base: base[area]?[dimension], target: target[area]?[dimension]))
                    }
                }
                let rows = try insights.compare(projectID: project, base: "1.0.0", target: "1.1.0", filter: filter, now: now)
                #expect(Set(rows.map { Figure(area: $0.area, dimension: $0.dimension, base: $0.base, target: $0.target) }) == expected, "\(query)")
                #expect(!rows.isEmpty, "\(query)")
                let same = try insights.compare(projectID: project, base: "1.0.0", target: "1.0.0", filter: filter, now: now)
                #expect(same.allSatisfy { $0.base == $0.target }, "a version compared with itself, \(query)")
            }
        }

        @Test("the requests page's templates and latency distribution, read in one pass, equal the two views read apart",
              arguments: StoreKind.allCases)
        func networkWithLatencyMatchesViews(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let now = Date()
            #expect(try server.postEvents(FilterFixture.events(now: now)).status == 200)
            try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
            let insights = server.app.context.insights
            let project = server.project.id
            for query in [["range": "all"], ["os": "18.1"], ["device": "iPhone16,1"], ["page": "Checkout"], ["release": "1.0.0", "os": "18.1"]] {
                let filter = try DashboardFilter(query: query)
                let both = try insights.networkWithLatency(projectID: project, filter: filter, now: now)
                #expect(both.templates == (try insights.network(projectID: project, filter: filter, now: now)), "\(query)")
                #expect(both.latency == (try insights.distribution(projectID: project, metric: "network.total", filter: filter, now: now)),
                        "\(query)")
                #expect(both.latency.total > 0, "\(query)")
            }
        }

        @Test("the query API takes the same parameters, and refuses a bad one with 400 naming it", arguments: StoreKind.allCases)
        func api(kind: StoreKind) throws {
            let server = try TestServer(kind)
            #expect(try server.postEvents(FilterFixture.events(now: Date())).status == 200)
            try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
            let all = try server.adminGet("/api/v1/aggregates/hangs")
            #expect((all.json["pages"] as? [[String: Any]])?.count == 2, "the API's default is all time")
            let filtered = try server.adminGet("/api/v1/aggregates/hangs?os=17.5&range=7d")
            #expect((filtered.json["pages"] as? [[String: Any]])?.first?["hangs"] as? Int == 3, "\(filtered.text)")
            let issues = try server.adminGet("/api/v1/issues?device=iPhone16%2C1&range=24h")
            #expect(((issues.json["issues"] as? [[String: Any]])?.first?["events"] as? Int) == 2, "\(issues.text)")
            let bad = try server.adminGet("/api/v1/aggregates/launch?from=2026-02-30&to=2026-03-02")
            #expect(bad.status == 400 && bad.text.contains("bad_filter") && bad.text.contains("from"), "\(bad.text)")
            #expect(try server.adminGet("/hangs?range=forever").status == 400)
            let releases = try server.adminGet("/api/v1/releases?release=1.0.0&range=all")
            #expect(releases.status == 200)
        }
    }
}
