import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// `vigil serve --events clickhouse://…` against two real `clickhouse-server` shards on loopback.
@Suite("events on a two-shard ClickHouse cluster", .serialized)
struct ClickHouseEventsTests {
    /// A server on a fresh SQLite file whose events also go to `cluster` (database `vigil`),
    /// inserting every `flush` seconds (0.2 by default) rather than every
    /// ``ClickHouseLocation/defaultFlushInterval``.
    static func server(_ cluster: ClickHouseTestCluster, workers: Int = 0,
                       symbolication: (any SymbolicationEngine)? = nil, flush: Double = 0.2) throws -> TestServer {
        let location = try ClickHouseLocation(cluster.url(database: "vigil") + "&flush=\(flush)")
        return try TestServer(.sqlite, configure: { options in
            options.events = location
            options.eventsSpoolDirectory = cluster.directory.file("spool").path
            options.workers = workers
            options.rateLimitPerSecond = 0
        }, symbolication: symbolication)
    }

    /// The reference: a server on a fresh SQLite file without `--events`, whose events and
    /// roll-up tables the ClickHouse figures must equal.
    static func plainServer(workers: Int, symbolication: (any SymbolicationEngine)? = nil) throws -> TestServer {
        try TestServer(.sqlite, configure: { options in
            options.workers = workers
            options.rateLimitPerSecond = 0
        }, symbolication: symbolication)
    }

    /// A reference server and one with `--events` on `cluster`, both processing at ingest (one
    /// worker, the path `vigil serve` takes by default), given the same ``variedEvents(count:)``
    /// (900), with the spool drained.
    static func pairWithEvents(_ cluster: ClickHouseTestCluster, symbolication: (any SymbolicationEngine)? = nil,
                               flush: Double = 0.2) throws -> (plain: TestServer, server: TestServer, events: [Event]) {
        let plain = try plainServer(workers: 1, symbolication: symbolication)
        let server = try Self.server(cluster, workers: 1, symbolication: symbolication, flush: flush)
        let events = variedEvents(count: 900)
        try post(plain, events)
        try post(server, events)
        guard try #require(server.app.context.eventSink).drain(timeout: 60) else { throw TestSupportError("the spool did not drain") }
        return (plain, server, events)
    }

    /// Expects the issue list and the overview's issue counts that `clickhouse` gives for
    /// project `b` under `filter` to equal what `sqlite` gives for `a`: the same issues (by
    /// fingerprint) in the same order, with the same events, sessions, first and last seen.
    static func expectSameIssues(_ clickhouse: Insights, _ b: Int64, as sqlite: Insights, _ a: Int64, filter: DashboardFilter,
                                 now: Date, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let label = Comment(rawValue: "\(filter)")
        func listed(_ issues: [IssueSummary]) -> [String] {
            issues.map { "\($0.fingerprint) \($0.kind) \($0.events) \($0.users) \($0.firstSeen) \($0.lastSeen)" }
        }
        for order in IssueOrder.allCases {
            #expect(try listed(clickhouse.issues(projectID: b, filter: filter, now: now, order: order))
                    == listed(sqlite.issues(projectID: a, filter: filter, now: now, order: order)), label, sourceLocation: sourceLocation)
        }
        #expect(try listed(clickhouse.issues(projectID: b, filter: filter, now: now, kind: "crash", limit: 2))
                == listed(sqlite.issues(projectID: a, filter: filter, now: now, kind: "crash", limit: 2)), label,
                sourceLocation: sourceLocation)
        #expect(try listed(clickhouse.issues(projectID: b, filter: filter, now: now, state: "unresolved"))
                == listed(sqlite.issues(projectID: a, filter: filter, now: now, state: "unresolved")), label,
                sourceLocation: sourceLocation)
        let overview = try sqlite.overview(projectID: a, filter: filter, now: now)
        let overviewCH = try clickhouse.overview(projectID: b, filter: filter, now: now)
        #expect(overviewCH.crashIssues == overview.crashIssues && overviewCH.hangIssues == overview.hangIssues, label,
                sourceLocation: sourceLocation)
    }

    /// Expects the hangs, frames, requests, launches by version and events by type that
    /// `clickhouse` gives for project `b` under `filter` to equal what `sqlite` gives for `a`.
    static func expectSameFigures(_ clickhouse: Insights, _ b: Int64, as sqlite: Insights, _ a: Int64, filter: DashboardFilter,
                                  now: Date, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let label = Comment(rawValue: "\(filter)")
        #expect(try clickhouse.hangs(projectID: b, filter: filter, now: now) == sqlite.hangs(projectID: a, filter: filter, now: now),
                label, sourceLocation: sourceLocation)
        #expect(try clickhouse.frames(projectID: b, filter: filter, now: now) == sqlite.frames(projectID: a, filter: filter, now: now),
                label, sourceLocation: sourceLocation)
        #expect(try clickhouse.network(projectID: b, filter: filter, now: now) == sqlite.network(projectID: a, filter: filter, now: now),
                label, sourceLocation: sourceLocation)
        #expect(try clickhouse.launches(projectID: b, filter: filter, now: now).versions
                == sqlite.launches(projectID: a, filter: filter, now: now).versions, label, sourceLocation: sourceLocation)
        #expect(try clickhouse.overview(projectID: b, filter: filter, now: now).eventsByType
                == sqlite.overview(projectID: a, filter: filter, now: now).eventsByType, label, sourceLocation: sourceLocation)
    }

    /// Events of every type over two versions, three pages, two request templates, four days,
    /// with varied (whole-millisecond) durations, so every dashboard figure has something to show.
    static func seededEvents(count: Int) -> [Event] {
        (0..<count).map { index in
            let type = EventType.allCases[index % EventType.allCases.count]
            var event = type == .hang ? ProcessingTestsFixture.hang(index: index) : SampleEvents.make(type, index: index)
            event.id = UUID()
            // Per round of one event of each type, so that every type spreads over versions, days and pages.
            let round = index / EventType.allCases.count
            event.app.version = round % 3 == 0 ? "3.2.0" : "3.3.0"
            event.app.build = round % 3 == 0 ? "412" : "420"
            event.time = SampleEvents.time(plusMilliseconds: -Int64(round % 4) * 86_400_000 + Int64(index))
            event.context.page = ["Home", "Cart", "Checkout"][round % 3]
            event.install = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", index % 37))
            switch event.payload {
            case .hang(var hang):
                hang.durationMs = Double(300 + (index * 37) % 4000)
                event.payload = .hang(hang)
            case .network(var network):
                network.urlTemplate = index % 2 == 0 ? "/users/:id" : "/orders"
                network.timings.total = Double(50 + (index * 13) % 900)
                event.payload = .network(network)
            case .launch(var launch):
                launch.ttidMs = Double(400 + (index * 7) % 1200)
                launch.kind = round % 4 == 1 ? .warm : .cold
                event.payload = .launch(launch)
            case .frames(var frames):
                frames.dropped = index % 11
                frames.slow = index % 3
                frames.frozen = index % 17 == 0 ? 1 : 0
                event.payload = .frames(frames)
            default:
                break
            }
            return event
        }
    }

    static func post(_ server: TestServer, _ events: [Event]) throws {
        var start = 0
        while start < events.count {
            let chunk = Array(events[start..<min(start + 100, events.count)])
            let answer = try server.postEvents(chunk)
            guard answer.status == 200, (answer.json["rejected"] as? [Any])?.isEmpty == true else {
                throw TestSupportError("events refused: \(answer.status) \(answer.text.prefix(500))")
            }
            start += chunk.count
        }
    }

    static func order(_ a: RollupRow, _ b: RollupRow) -> Bool {
        (a.metric, a.dimension, a.appVersion ?? "", a.day ?? 0) < (b.metric, b.dimension, b.appVersion ?? "", b.day ?? 0)
    }

    static func count(_ cluster: ClickHouseTestCluster, _ sql: String, shard: Int = 0) throws -> Int {
        Int(try cluster.query(shard: shard, sql)) ?? -1
    }

    static func count(_ cluster: ClickHouseTestCluster, _ sql: String, node: Int) throws -> Int {
        Int(try cluster.query(node: node, sql)) ?? -1
    }

    /// Whether a test server processes at ingest (one worker: its spool is written while the
    /// main database commits) or stores events waiting (no worker: spooled after the commit).
    static let ingestPaths = [0, 1]

    @Test("events posted to one server land once across both shards, and a repeated or half-repeated batch is not stored again",
          arguments: ingestPaths)
    func eventsLandOnce(workers: Int) throws {
        let cluster = try ClickHouseTestCluster(shards: 2)
        defer { cluster.stop() }
        let server = try Self.server(cluster, workers: workers)
        let events = Self.seededEvents(count: 600)
        try Self.post(server, events)
        // The SDK's retry of a batch it did not hear back about: accepted, stored nowhere again.
        try Self.post(server, Array(events[0..<100]))
        // Half of a batch stored before: only the other half is new, in --db and in ClickHouse.
        let half = try server.postEvents(Array(events[100..<150]) + Self.seededEvents(count: 50))
        #expect(half.status == 200 && half.json["stored"] as? Int == 50, "\(half.text.prefix(300))")
        let sink = try #require(server.app.context.eventSink)
        #expect(sink.drain(timeout: 60), "the spool emptied")
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event") == 650)
        #expect(try Self.count(cluster, "SELECT uniqExact(id) FROM vigil.apm_event") == 650)
        let first = try Self.count(cluster, "SELECT count() FROM vigil.apm_event_local", shard: 0)
        let second = try Self.count(cluster, "SELECT count() FROM vigil.apm_event_local", shard: 1)
        #expect(first + second == 650)
        #expect(first > 150 && second > 150, "both shards hold a share: \(first) and \(second)")
        let metrics = try server.client.get("/metrics").text
        #expect(metrics.contains("vigil_clickhouse_spool_batches 0"))
        #expect(metrics.contains("vigil_clickhouse_inserted_rows 650"))
        // No batch left in the spool folder (only spare files, `.tmp`, kept for reuse and deleted at start).
        let left = try FileManager.default.contentsOfDirectory(atPath: cluster.directory.file("spool").path)
        #expect(left.allSatisfy { $0.hasSuffix(".tmp") }, "\(left)")
    }

    @Test("the dashboard's figures read from ClickHouse equal SQLite's roll-up tables' on the same events")
    func sameFiguresAsRollupTables() throws {
        let cluster = try ClickHouseTestCluster(shards: 2)
        defer { cluster.stop() }
        let server = try Self.server(cluster)
        // The same events into a server without --events: its roll-up tables are the reference.
        let plain = try Self.plainServer(workers: 0)
        let events = Self.seededEvents(count: 900)
        try Self.post(server, events)
        try Self.post(plain, events)
        // Processed by the worker path, each server's processor with its own roll-up scope.
        try server.app.context.processor.drain()
        try plain.app.context.processor.drain()
        let sink = try #require(server.app.context.eventSink)
        #expect(sink.drain(timeout: 60))
        #expect(server.project.id == plain.project.id)

        let tables = Insights(store: plain.store)
        let clickhouse = server.app.context.insights
        #expect(server.app.context.rollups is ClickHouseEventStore)
        let project = server.project.id
        // With --events the main database keeps only the roll-ups its own readers use
        // (RollupScope): release health for the alert rules, event counts, hang and frame-window
        // counts for the page menu; everything else is ClickHouse's.
        let metrics = { (store: ServerStore, table: String) in
            try store.database.read { connection in
                Set(try connection.query("SELECT DISTINCT metric FROM \(table)").compactMap { $0.string("metric") })
            }
        }
        for table in ["rollup_sums", "rollup_histograms", "rollup_sketches"] {
            let kept = try metrics(server.store, table), all = try metrics(plain.store, table)
            #expect(kept == all.filter { RollupScope.readByMainDatabase.keeps($0) }, "\(table): \(kept.sorted())")
        }
        let kept = try metrics(server.store, "rollup_sums")
        #expect(kept.isSuperset(of: ["events", "hang", "frames.windows", "release.sessions", "release.hangs"]), "\(kept.sorted())")
        #expect(kept.isDisjoint(with: ["network", "network.total", "launch", "frames.slow", "crash", "span"]), "\(kept.sorted())")
        #expect(try metrics(plain.store, "rollup_sums").isSuperset(of: ["network", "launch", "frames.slow", "crash"]))
        // What the main database's own readers get is unchanged: release health (the alert rules), the
        // page menu's pages, the versions.
        #expect(try server.store.releaseHealth(projectID: project).map(\.total) == plain.store.releaseHealth(projectID: project).map(\.total))
        #expect(try server.store.rollupDimensions(projectID: project, metrics: ["hang", "frames.windows"])
                == plain.store.rollupDimensions(projectID: project, metrics: ["hang", "frames.windows"]))
        #expect(try server.store.appVersions(projectID: project) == plain.store.appVersions(projectID: project))
        let hangs = try tables.hangs(projectID: project)
        #expect(!hangs.isEmpty)
        #expect(try clickhouse.hangs(projectID: project) == hangs)
        // The seeded events fall on days 20,783 to 20,786 (SampleEvents.time's day and the three before).
        var page = RollupFilter(version: "3.2.0", sinceDay: 20_784)
        page.untilDay = 20_785
        page.dimension = "Home"
        var range = RollupFilter()
        range.untilDay = 20_784
        for filter in [RollupFilter(version: "3.3.0"), RollupFilter(sinceDay: 20_785), page, range] {
            #expect(try clickhouse.hangs(projectID: project, filter: filter) == tables.hangs(projectID: project, filter: filter))
            #expect(try clickhouse.network(projectID: project, filter: filter) == tables.network(projectID: project, filter: filter))
            #expect(try clickhouse.frames(projectID: project, filter: filter) == tables.frames(projectID: project, filter: filter))
        }
        for filter in [RollupFilter(version: "3.3.0", byDay: true), RollupFilter(sinceDay: 20_785, byVersion: true, byDay: true)] {
            #expect(try server.app.context.rollups.rollupSums(projectID: project, metrics: ["events", "launch"], filter: filter).sorted(by: Self.order)
                    == plain.store.rollupSums(projectID: project, metrics: ["events", "launch"], filter: filter).sorted(by: Self.order))
        }
        let network = try tables.network(projectID: project)
        #expect(network.count == 2 && network.allSatisfy { $0.p99Ms != nil && $0.phases.dns != nil })
        #expect(try clickhouse.network(projectID: project) == network)
        let frames = try tables.frames(projectID: project)
        #expect(!frames.isEmpty)
        #expect(try clickhouse.frames(projectID: project) == frames)
        let launches = try tables.launches(projectID: project)
        #expect(launches.count == 4)
        #expect(try clickhouse.launches(projectID: project) == launches)
        #expect(try clickhouse.launchTrend(projectID: project) == tables.launchTrend(projectID: project))
        let comparison = try tables.compare(projectID: project, base: "3.2.0", target: "3.3.0")
        #expect(!comparison.isEmpty)
        #expect(try clickhouse.compare(projectID: project, base: "3.2.0", target: "3.3.0") == comparison)
        let overview = try tables.overview(projectID: project)
        #expect(try clickhouse.overview(projectID: project) == overview)
        #expect(overview.eventsByType.values.reduce(0, +) == 900)
        // Stored waiting, the events joined their issues through the workers' link rows, one each.
        let grouped = try server.store.database.read { try $0.scalar("SELECT COUNT(*) FROM apm_event WHERE issue_id IS NOT NULL").int ?? 0 }
        #expect(grouped > 0)
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event WHERE type = 'issue_link'") == grouped)
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event WHERE fingerprint != '' AND type IN ('crash', 'hang')") == 0)
        let now = SampleEvents.time(plusMilliseconds: 3_600_000)
        for filter in [DashboardFilter(range: .all, release: "3.3.0"), DashboardFilter(range: .all, page: "Cart"),
                       DashboardFilter(range: .recent(hours: 30))] {
            try Self.expectSameIssues(clickhouse, project, as: tables, project, filter: filter, now: now)
        }
        let releases = try plain.store.releaseHealth(projectID: project)
        #expect(releases.count == 2 && releases.allSatisfy { $0.total.users > 0 && $0.total.sessions > 0 })
        let fromClickHouse = try server.app.context.rollups.releaseHealth(projectID: project)
        #expect(fromClickHouse.map(\.total) == releases.map(\.total))
        #expect(fromClickHouse.map(\.days) == releases.map(\.days))
        // The releases page's form: users merged over the days in the query, per-day figures without users.
        let merged = try plain.store.releaseHealth(projectID: project, sinceDay: 20_784, untilDay: 20_786, version: "3.3.0", dailyUsers: false)
        #expect(merged.count == 1 && merged[0].total.users > 0)
        #expect(try server.app.context.rollups.releaseHealth(projectID: project, sinceDay: 20_784, untilDay: 20_786, version: "3.3.0",
                                                              dailyUsers: false).map(\.total) == merged.map(\.total))
        // A cluster written before the roll-up views existed: dropping them and the version mark
        // leaves the events alone; the next start creates the views and fills them from those
        // rows, once (a second start adds nothing).
        for shard in 0..<2 {
            for name in ["apm_rollup_sums", "apm_rollup_histograms", "apm_rollup_sketches", "apm_facet_sums", "apm_facet_histograms",
                         "apm_request"] {
                _ = try cluster.query(shard: shard, "DROP TABLE vigil.\(name)_mv")
                _ = try cluster.query(shard: shard, "DROP TABLE vigil.\(name)_local")
            }
            _ = try cluster.query(shard: shard, "DROP TABLE vigil.vigil_schema_version")
        }
        let reopened = try ClickHouseCluster(ClickHouseLocation(cluster.url(database: "vigil")))
        try reopened.createSchema()
        try reopened.createSchema()
        let refilled = Insights(store: plain.store, rollups: ClickHouseEventStore(cluster: reopened))
        #expect(try refilled.overview(projectID: project) == overview)
        #expect(try refilled.hangs(projectID: project, filter: page) == tables.hangs(projectID: project, filter: page))
        #expect(try refilled.network(projectID: project) == network)
        #expect(try refilled.launches(projectID: project) == launches)
        #expect(try ClickHouseEventStore(cluster: reopened).releaseHealth(projectID: project).map(\.total) == releases.map(\.total))
        // The pages render from ClickHouse.
        for path in ["/", "/hangs", "/network", "/launch", "/frames", "/compare?base=3.2.0&target=3.3.0", "/releases"] {
            #expect(try server.adminGet(path).status == 200, "\(path)")
        }
    }

    @Test("a version-3 cluster's views, which read the event table, are moved onto the contributions: their rows stay and later events count once")
    func viewsMovedOntoContributions() throws {
        let cluster = try ClickHouseTestCluster(shards: 2)
        defer { cluster.stop() }
        let plain = try Self.plainServer(workers: 1)
        let server = try Self.server(cluster, workers: 1)
        // Each shard as a version-3 server left it: every view reads apm_event_local, and there
        // is no contributions table.
        let eventTable = ClickHouseSchema.eventTable(database: "vigil")
        for shard in 0..<2 {
            for view in ClickHouseSchema.contributionViews + ["apm_contrib_mv", "apm_contrib_local", "vigil_schema_version"] {
                _ = try cluster.query(shard: shard, "DROP TABLE vigil.\(view)")
            }
            for rollup in ClickHouseSchema.rollups(database: "vigil", reading: eventTable)
                + ClickHouseSchema.facetRollups(database: "vigil", reading: eventTable) {
                _ = try cluster.query(shard: shard, "CREATE MATERIALIZED VIEW vigil.\(rollup.name)_mv TO vigil.\(rollup.name)_local AS \(rollup.select)")
            }
            _ = try cluster.query(shard: shard, "CREATE MATERIALIZED VIEW vigil.apm_request_mv TO vigil.apm_request_local AS "
                                  + ClickHouseSchema.requestSelect(reading: eventTable))
            _ = try cluster.query(shard: shard, ClickHouseSchema.versionTable(database: "vigil"))
            _ = try cluster.query(shard: shard, "INSERT INTO vigil.vigil_schema_version (version) VALUES (3)")
        }
        let events = Self.variedEvents(count: 900)
        try Self.post(plain, events)
        try Self.post(server, Array(events[0..<450]))
        let sink = try #require(server.app.context.eventSink)
        #expect(sink.drain(timeout: 60))
        #expect(try Self.count(cluster, "SELECT sum(event_count) FROM vigil.apm_facet_sums WHERE metric = 'events' AND facet = 'os'") == 450)

        // The next start replaces the six views (a second start changes nothing).
        let reopened = try ClickHouseCluster(ClickHouseLocation(cluster.url(database: "vigil")))
        try reopened.createSchema()
        try reopened.createSchema()
        for shard in 0..<2 {
            #expect(try Self.count(cluster, "SELECT max(version) FROM vigil.vigil_schema_version", shard: shard) == ClickHouseSchema.version)
            for view in ClickHouseSchema.contributionViews {
                let definition = try cluster.query(shard: shard, "SHOW CREATE TABLE vigil.\(view)")
                // 18.16 passes a view's rows on to the views that read that view.
                #expect(definition.contains("FROM vigil.apm_contrib_mv ") && !definition.contains("apm_event_local"), "\(view): \(definition)")
            }
        }
        try Self.post(server, Array(events[450...]))
        #expect(sink.drain(timeout: 60))
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event") == 900)
        #expect(try Self.count(cluster, "SELECT sum(event_count) FROM vigil.apm_facet_sums WHERE metric = 'events' AND facet = 'os'") == 900)
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_request") == events.filter { $0.type == .network }.count)

        // The figures over both halves equal SQLite's, unfiltered and under one facet (the roll-ups
        // and facet roll-ups written by the old views and the new ones together).
        let sqlite = plain.app.context.insights, clickhouse = server.app.context.insights
        let a = plain.project.id, b = server.project.id
        let now = SampleEvents.time(plusMilliseconds: 3_600_000)
        for filter in [DashboardFilter(range: .all), DashboardFilter(range: .all, osVersion: "18.1"),
                       DashboardFilter(range: .all, deviceModel: "iPhone15,3"), DashboardFilter(range: .all, page: "Cart")] {
            try Self.expectSameFigures(clickhouse, b, as: sqlite, a, filter: filter, now: now)
            #expect(try clickhouse.compare(projectID: b, base: "3.2.0", target: "3.3.0", filter: filter, now: now)
                    == sqlite.compare(projectID: a, base: "3.2.0", target: "3.3.0", filter: filter, now: now), "\(filter)")
        }
        #expect(try server.store.releaseHealth(projectID: b).map(\.total) == plain.store.releaseHealth(projectID: a).map(\.total))
        #expect(try ClickHouseEventStore(cluster: reopened).releaseHealth(projectID: b).map(\.total)
                == plain.store.releaseHealth(projectID: a).map(\.total))
    }

    @Test("late symbols move events between issues: ClickHouse's issue counts under a filter follow the main database's through link rows")
    func issueLinksFollowReprocessing() throws {
        let cluster = try ClickHouseTestCluster(shards: 2)
        defer { cluster.stop() }
        let (plain, server, _) = try Self.pairWithEvents(cluster, symbolication: TableSymbolication())
        let sink = try #require(server.app.context.eventSink)
        let a = plain.project.id, b = server.project.id
        let sqlite = plain.app.context.insights, clickhouse = server.app.context.insights
        let now = SampleEvents.time(plusMilliseconds: 3_600_000)
        let filters = [DashboardFilter(range: .all, osVersion: "18.1"), DashboardFilter(range: .all, release: "3.2.0", page: "Home"),
                       DashboardFilter(range: .recent(hours: 48), deviceModel: "iPad13,1")]
        // Processed at ingest: each event row carries its issue, no link rows.
        let provisional = try server.store.issues(projectID: b, limit: 1000)
        #expect(provisional.count > 3 && provisional.allSatisfy { !$0.symbolicated },
                "\(provisional.map { "\($0.kind) \($0.symbolicated) \($0.events)" })")
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event WHERE type IN ('issue_link', 'issue_unlink')") == 0)
        for filter in filters { try Self.expectSameIssues(clickhouse, b, as: sqlite, a, filter: filter, now: now) }

        // The symbols arrive: re-processing merges the provisional issues.
        for (target, project) in [(plain, a), (server, b)] {
            let requeued = try target.store.storeSymbols(projectID: project, try TableSymbolication.slices([TableSymbolication.sampleUpload()]))
            #expect(requeued > 0)
            try target.app.context.processor.drain()
        }
        #expect(sink.drain(timeout: 60))
        let merged = try server.store.issues(projectID: b, limit: 1000)
        #expect(merged.count < provisional.count && merged.contains { $0.symbolicated }, "\(merged.count) issues")
        let moved = try Self.count(cluster, "SELECT count() FROM vigil.apm_event WHERE type = 'issue_unlink'")
        let linked = try Self.count(cluster, "SELECT count() FROM vigil.apm_event WHERE type = 'issue_link'")
        #expect(moved > 0 && moved == linked, "\(moved) unlinked, \(linked) linked")
        for filter in filters + [DashboardFilter(range: .all, page: "Cart")] {
            try Self.expectSameIssues(clickhouse, b, as: sqlite, a, filter: filter, now: now)
        }
        // The links did not change any other figure.
        try Self.expectSameFigures(clickhouse, b, as: sqlite, a, filter: filters[0], now: now)
        #expect(try server.adminGet("/issues?range=all&os=18.1").status == 200)
    }

    @Test("a version-4 cluster, whose event rows carry no issue, gets a link row for every issue event of the main database, once")
    func issueLinksBackfilled() throws {
        let cluster = try ClickHouseTestCluster(shards: 2)
        defer { cluster.stop() }
        let (plain, server, _) = try Self.pairWithEvents(cluster)
        // Each shard as a version-4 server left it: no fingerprint column, here or in the entry
        // node's Distributed table.
        for shard in 0..<2 {
            _ = try cluster.query(shard: shard, "ALTER TABLE vigil.apm_event_local DROP COLUMN fingerprint")
            _ = try cluster.query(shard: shard, "DROP TABLE vigil.vigil_schema_version")
            _ = try cluster.query(shard: shard, ClickHouseSchema.versionTable(database: "vigil"))
            _ = try cluster.query(shard: shard, "INSERT INTO vigil.vigil_schema_version (version) VALUES (4)")
        }
        _ = try cluster.query(shard: 0, "DROP TABLE vigil.apm_event")
        _ = try cluster.query(shard: 0, "CREATE TABLE vigil.apm_event ("
            + ClickHouseSchema.columns.filter { $0.name != "fingerprint" }.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
            + ") ENGINE = Distributed(\(ClickHouseTestCluster.clusterName), vigil, apm_event_local, rand())")
        let reopened = try ClickHouseCluster(ClickHouseLocation(cluster.url(database: "vigil")))
        let grouped = try server.store.issueLinkRows().count
        #expect(grouped > 0)
        try reopened.createSchema(issueLinks: { try server.store.issueLinkRows() })
        try reopened.createSchema(issueLinks: { try server.store.issueLinkRows() })
        for shard in 0..<2 {
            #expect(try Self.count(cluster, "SELECT max(version) FROM vigil.vigil_schema_version", shard: shard) == ClickHouseSchema.version)
        }
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event WHERE type = 'issue_link'") == grouped)
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event WHERE fingerprint != '' AND type IN ('crash', 'hang')") == 0)
        let upgraded = Insights(store: server.store, rollups: ClickHouseEventStore(cluster: reopened))
        let now = SampleEvents.time(plusMilliseconds: 3_600_000)
        for filter in [DashboardFilter(range: .all, osVersion: "17.4"), DashboardFilter(range: .recent(hours: 48), page: "Home")] {
            try Self.expectSameIssues(upgraded, server.project.id, as: plain.app.context.insights, plain.project.id, filter: filter, now: now)
            try Self.expectSameFigures(upgraded, server.project.id, as: plain.app.context.insights, plain.project.id, filter: filter, now: now)
        }
    }

    @Test("a shard killed for 10 s during ingest loses nothing and duplicates nothing once it is back")
    func shardOutageDuringIngest() throws {
        let cluster = try ClickHouseTestCluster(shards: 2)
        defer { cluster.stop() }
        let server = try Self.server(cluster, workers: 1)
        let sink = try #require(server.app.context.eventSink)
        var backlog: ClickHouseEventSink.Status?
        let total = try Self.ingest(into: [server], seconds: 14) {
            Thread.sleep(forTimeInterval: 2)
            cluster.kill(shard: 1)
            Thread.sleep(forTimeInterval: 9)
            backlog = sink.status()
            Thread.sleep(forTimeInterval: 1)
            try cluster.start(shard: 1)
        }
        #expect(backlog.map { $0.spooledBatches > 0 && $0.failedInserts > 0 } == true,
                "the outage left batches waiting: \(String(describing: backlog))")
        #expect(sink.drain(timeout: 90), "the spool emptied after the shard returned")
        #expect(total > 1000)
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event") == total)
        #expect(try Self.count(cluster, "SELECT uniqExact(id) FROM vigil.apm_event") == total)
        let counts = try server.store.eventCounts(projectID: server.project.id)
        #expect(counts.pending + counts.processed + counts.reprocess == total)
    }

    /// Posts batches of 50 ``variedEvents(count:)`` to every one of `servers` for `seconds`
    /// while `meanwhile` runs on this thread; returns how many events each server took.
    static func ingest(into servers: [TestServer], seconds: Double, meanwhile: () throws -> Void) throws -> Int {
        let failure = Collected<String>()
        let posted = Collected<Int>()
        let ingest = DispatchGroup()
        ingest.enter()
        DispatchQueue.global().async {
            defer { ingest.leave() }
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                do {
                    let batch = variedEvents(count: 50)
                    for server in servers { try post(server, batch) }
                    posted.append(batch.count)
                } catch {
                    failure.append("\(error)")
                    return
                }
                Thread.sleep(forTimeInterval: 0.15)
            }
        }
        defer { ingest.wait() }
        try meanwhile()
        ingest.wait()
        guard failure.items.isEmpty else { throw TestSupportError("a batch was refused: \(failure.items)") }
        return posted.items.reduce(0, +)
    }

    @Test("with --events the release alert rules still fire from the main database's release roll-ups")
    func releaseAlertsWithEvents() throws {
        let cluster = try ClickHouseTestCluster(shards: 2)
        defer { cluster.stop() }
        let server = try Self.server(cluster, workers: 1)
        let url = "http://127.0.0.1:9/unused"
        _ = try BothStores.AlertTests.createRule(server, ["name": "crash-free", "kind": "crash_free_users", "url": url, "threshold": 99,
                                                         "minSessions": 10])
        _ = try BothStores.AlertTests.createRule(server, ["name": "hangs", "kind": "hang_rate", "url": url, "threshold": 1, "minSessions": 10])
        // 20 sessions of 20 users, 4 crashed, hangs of 2.5 s: processed at ingest.
        let events = BothStores.AlertTests.releaseHealthEvents()
        try Self.post(server, events)
        _ = try server.app.context.processor.drain()
        let sink = try #require(server.app.context.eventSink)
        #expect(sink.drain(timeout: 60))
        // The release figures the rules read (the main database) equal the releases page's (ClickHouse).
        let fromMain = try server.store.releaseHealth(projectID: server.project.id).map(\.total)
        #expect(fromMain.count == 1 && fromMain[0].sessions == 20 && fromMain[0].crashedUsers > 0)
        #expect(try server.app.context.rollups.releaseHealth(projectID: server.project.id).map(\.total) == fromMain)
        let evaluator = AlertEvaluator(store: server.store)
        #expect(try evaluator.evaluate() == 2)
        let alerts = try server.store.alerts(projectID: server.project.id)
        #expect(alerts.contains { $0.text.contains("crash-free users") } && alerts.contains { $0.text.contains("s per foreground hour") })
    }

    /// Expects the request breakdown by version and network type that `server` (`--events`)
    /// reads from ClickHouse for project `b` under `filter` to equal what `plain` reads from its
    /// request facts for `a`: whole, for one template, and cut to the newest 7 requests.
    static func expectSameBreakdowns(_ server: TestServer, _ b: Int64, as plain: TestServer, _ a: Int64, filter: DashboardFilter,
                                     now: Date, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let clickhouse = server.app.context.networkBreakdown, sqlite = plain.app.context.networkBreakdown
        var cut = clickhouse, cutSQLite = sqlite
        cut.maximumEvents = 7
        cutSQLite.maximumEvents = 7
        for (fromClickHouse, fromSQLite, template) in [(clickhouse, sqlite, nil), (clickhouse, sqlite, "GET /orders"), (cut, cutSQLite, nil)] {
            let expected = try fromSQLite.breakdown(projectID: a, template: template, filter: filter, now: now)
            let answer = try fromClickHouse.breakdown(projectID: b, template: template, filter: filter, now: now)
            #expect(answer.templates == expected.templates && answer.eventsRead == expected.eventsRead
                    && answer.truncated == expected.truncated, "\(filter) \(template ?? "*")", sourceLocation: sourceLocation)
        }
    }

    /// The seeded events spread over two OS versions and three device models as well, on three
    /// kinds of network (one unknown), with requests answered 200, 404 and 503.
    static func variedEvents(count: Int) -> [Event] {
        seededEvents(count: count).enumerated().map { index, event in
            var event = event
            event.device.osVersion = index % 2 == 0 ? "17.4" : "18.1"
            event.device.model = ["iPhone14,2", "iPhone15,3", "iPad13,1"][(index / 2) % 3]
            let round = index / EventType.allCases.count
            event.context.network = ["wifi", "cellular", nil][(round / 2) % 3]
            if case .network(var request) = event.payload {
                request.status = [200, 200, 404, 503, 200][round % 5]
                event.payload = .network(request)
            }
            return event
        }
    }

    @Test("with --events the main database keeps outlines of the events it does not read, and the filtered views from ClickHouse equal SQLite's")
    func filteredViewsWithOutlines() throws {
        let cluster = try ClickHouseTestCluster(shards: 2)
        defer { cluster.stop() }
        let (plain, server, events) = try Self.pairWithEvents(cluster)
        // A retried batch is still recognised: the outlines keep the ids.
        let again = try server.postEvents(Array(events[0..<100]))
        #expect(again.status == 200 && again.json["stored"] as? Int == 0, "\(again.text.prefix(300))")
        let sink = try #require(server.app.context.eventSink)
        #expect(sink.drain(timeout: 60))
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event") == 900)

        // What the main database keeps: whole rows for issues, stacks and launches; outlines otherwise.
        let rows = try server.store.database.read { connection in
            try connection.query("SELECT type, payload_json, issue_id, images_json FROM apm_event WHERE project_id = ?",
                                 [.integer(server.project.id)])
        }
        #expect(rows.count == 900)
        let outlines = rows.filter { $0.string("payload_json") == "{}" }
        #expect(!outlines.isEmpty && outlines.allSatisfy { $0.string("type") != "launch" && $0["issue_id"].int64 == nil && $0.string("images_json") == nil })
        #expect(Set(outlines.compactMap { $0.string("type") }).isSuperset(of: ["network", "span", "log"]))
        #expect(rows.filter { $0.string("type") == "hang" || $0.string("type") == "launch" }.allSatisfy { $0.string("payload_json") != "{}" })
        let facts = try server.store.database.read { connection in try connection.query("SELECT COUNT(*) AS n FROM request_facts") }
        #expect(facts.first?.int("n") == 0, "ClickHouse serves the request views")

        // The views under every kind of filter: from the events in SQLite, and from ClickHouse.
        let sqlite = plain.app.context.insights, clickhouse = server.app.context.insights
        let a = plain.project.id, b = server.project.id
        let now = SampleEvents.time(plusMilliseconds: 3_600_000)
        let day = Int64(1_795_985_323_123 / 86_400_000) * 86_400_000
        let filters = [
            DashboardFilter(range: .all), DashboardFilter(range: .all, osVersion: "18.1"),
            DashboardFilter(range: .all, deviceModel: "iPhone15,3"), DashboardFilter(range: .all, page: "Cart"),
            DashboardFilter(range: .all, release: "3.3.0", osVersion: "17.4"),
            DashboardFilter(range: .custom(from: Date(timeIntervalSince1970: Double(day - 2 * 86_400_000 + 43_200_000) / 1000),
                                           to: Date(timeIntervalSince1970: Double(day + 86_400_000) / 1000)), deviceModel: "iPad13,1"),
            DashboardFilter(range: .recent(hours: 48), page: "Home"),
            // Whole days only (the facet roll-ups alone), a release with a device, a range within
            // one day (the events alone), and two facets at once (the events alone).
            DashboardFilter(range: .custom(from: Date(timeIntervalSince1970: Double(day - 2 * 86_400_000) / 1000),
                                           to: Date(timeIntervalSince1970: Double(day) / 1000)), osVersion: "17.4"),
            DashboardFilter(range: .all, release: "3.2.0", deviceModel: "iPhone14,2"),
            DashboardFilter(range: .custom(from: Date(timeIntervalSince1970: Double(day - 86_400_000 + 3_600_000) / 1000),
                                           to: Date(timeIntervalSince1970: Double(day - 3_600_000) / 1000)), page: "Checkout"),
            DashboardFilter(range: .all, osVersion: "18.1", deviceModel: "iPad13,1"),
        ]
        for filter in filters {
            let label = "\(filter)"
            #expect(try clickhouse.hangs(projectID: b, filter: filter, now: now) == sqlite.hangs(projectID: a, filter: filter, now: now), "\(label)")
            #expect(try clickhouse.frames(projectID: b, filter: filter, now: now) == sqlite.frames(projectID: a, filter: filter, now: now), "\(label)")
            #expect(try clickhouse.network(projectID: b, filter: filter, now: now) == sqlite.network(projectID: a, filter: filter, now: now), "\(label)")
            let launches = try sqlite.launches(projectID: a, filter: filter, now: now)
            let fromClickHouse = try clickhouse.launches(projectID: b, filter: filter, now: now)
            #expect(fromClickHouse.versions == launches.versions, "\(label)")
            #expect(fromClickHouse.trend == launches.trend, "\(label)")
            #expect(try clickhouse.crashes(projectID: b, filter: filter, now: now) == sqlite.crashes(projectID: a, filter: filter, now: now), "\(label)")
            let overview = try sqlite.overview(projectID: a, filter: filter, now: now)
            let overviewCH = try clickhouse.overview(projectID: b, filter: filter, now: now)
            #expect(overviewCH.eventsByType == overview.eventsByType && overviewCH.eventsByDay == overview.eventsByDay, "\(label)")
            try Self.expectSameIssues(clickhouse, b, as: sqlite, a, filter: filter, now: now)
            for metric in ["hang.duration", "network.total", "launch.ttid"] {
                #expect(try clickhouse.distribution(projectID: b, metric: metric, filter: filter, now: now)
                        == sqlite.distribution(projectID: a, metric: metric, filter: filter, now: now), "\(metric) \(label)")
            }
            let latency = try sqlite.networkWithLatency(projectID: a, filter: filter, now: now)
            let latencyCH = try clickhouse.networkWithLatency(projectID: b, filter: filter, now: now)
            #expect(latencyCH.templates == latency.templates && latencyCH.latency == latency.latency, "\(label)")
            #expect(try clickhouse.launchWaterfall(projectID: b, filter: filter, now: now).releases
                    == sqlite.launchWaterfall(projectID: a, filter: filter, now: now).releases, "\(label)")
            #expect(try clickhouse.compare(projectID: b, base: "3.2.0", target: "3.3.0", filter: filter, now: now)
                    == sqlite.compare(projectID: a, base: "3.2.0", target: "3.3.0", filter: filter, now: now), "\(label)")
            try Self.expectSameBreakdowns(server, b, as: plain, a, filter: filter, now: now)
        }
        // The filtered figures are not empty, so the equalities above compare something (requests and
        // frame windows can only come from ClickHouse: the main database keeps their outlines).
        let byOS = DashboardFilter(range: .all, osVersion: "18.1")
        #expect(try !clickhouse.network(projectID: b, filter: byOS, now: now).isEmpty)
        #expect(try clickhouse.frames(projectID: b, filter: byOS, now: now).contains { $0.slow > 0 })
        #expect(try !clickhouse.hangs(projectID: b, filter: byOS, now: now).isEmpty)
        let breakdown = try #require(server.app.context.networkBreakdown.breakdown(projectID: b, filter: byOS, now: now).templates.first)
        #expect(Set(breakdown.byNetwork.map(\.key)) == ["wifi", "cellular", "unknown"] && breakdown.byVersion.count == 2)
        #expect(breakdown.total.errors > 0 && breakdown.total.clientErrors > 0 && breakdown.total.phases.dns != nil)
        // Every page renders with a filter that reads events.
        for path in ["/", "/hangs", "/network", "/network/breakdown", "/launch", "/frames", "/compare?base=3.2.0&target=3.3.0",
                     "/releases", "/issues", "/api/v1/network/breakdown?template=GET%20/orders"] {
            let filtered = path + (path.contains("?") ? "&" : "?") + "range=all&os=18.1"
            #expect(try server.adminGet(filtered).status == 200, "\(filtered)")
        }
        // The facet roll-ups hold every facet, and each event once per facet: the events counted
        // under one facet (all its values) are the project's events (with a page, for pages).
        let facets = try cluster.query(shard: 0, "SELECT facet, sum(event_count) FROM vigil.apm_facet_sums "
            + "WHERE metric = 'events' GROUP BY facet ORDER BY facet FORMAT TabSeparated")
        let withPage = events.filter { $0.context.page != nil }.count
        #expect(facets.split(separator: "\n").map(String.init) == ["device\t900", "os\t900", "page\t\(withPage)"], "\(facets)")

        // A cluster written by a version-2 server (roll-up views, no facet roll-ups or request
        // rows): the next start creates those views and fills them from the rows the shards
        // hold, once.
        for shard in 0..<2 {
            for name in ["apm_facet_sums", "apm_facet_histograms", "apm_request"] {
                _ = try cluster.query(shard: shard, "DROP TABLE vigil.\(name)_mv")
                _ = try cluster.query(shard: shard, "DROP TABLE vigil.\(name)_local")
                _ = try cluster.query(shard: shard, "DROP TABLE IF EXISTS vigil.\(name)")
            }
            _ = try cluster.query(shard: shard, "DROP TABLE vigil.vigil_schema_version")
            _ = try cluster.query(shard: shard, "CREATE TABLE vigil.vigil_schema_version (version UInt32) ENGINE = TinyLog")
            _ = try cluster.query(shard: shard, "INSERT INTO vigil.vigil_schema_version (version) VALUES (2)")
        }
        let reopened = try ClickHouseCluster(ClickHouseLocation(cluster.url(database: "vigil")))
        try reopened.createSchema()
        try reopened.createSchema()
        for shard in 0..<2 {
            #expect(try Self.count(cluster, "SELECT max(version) FROM vigil.vigil_schema_version", shard: shard) == ClickHouseSchema.version)
        }
        #expect(try cluster.query(shard: 0, "SELECT sum(event_count) FROM vigil.apm_facet_sums WHERE metric = 'events' AND facet = 'os'") == "900")
        let upgraded = Insights(store: server.store, rollups: ClickHouseEventStore(cluster: reopened))
        for filter in [byOS, DashboardFilter(range: .all, deviceModel: "iPhone15,3"), DashboardFilter(range: .all, page: "Cart"),
                       DashboardFilter(range: .recent(hours: 48), page: "Home")] {
            try Self.expectSameFigures(upgraded, b, as: sqlite, a, filter: filter, now: now)
        }
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_request") == events.filter { $0.type == .network }.count)
        // One facet over whole days is read from the facet roll-ups alone, and the requests page
        // under two facets from the request rows: with the event rows gone their figures stay;
        // frames under two facets (read from the event rows) have nothing left.
        for shard in 0..<2 { _ = try cluster.query(shard: shard, "TRUNCATE TABLE vigil.apm_event_local") }
        #expect(try Self.count(cluster, "SELECT count() FROM vigil.apm_event") == 0)
        let request = try #require(events.first { $0.type == .network })
        let twoFacets = DashboardFilter(range: .all, osVersion: request.device.osVersion, deviceModel: request.device.model)
        #expect(try upgraded.network(projectID: b, filter: byOS, now: now) == sqlite.network(projectID: a, filter: byOS, now: now))
        #expect(try upgraded.frames(projectID: b, filter: byOS, now: now) == sqlite.frames(projectID: a, filter: byOS, now: now))
        let requests = try sqlite.network(projectID: a, filter: twoFacets, now: now)
        #expect(!requests.isEmpty)
        #expect(try upgraded.network(projectID: b, filter: twoFacets, now: now) == requests)
        #expect(try upgraded.frames(projectID: b, filter: twoFacets, now: now).isEmpty)
    }
}
