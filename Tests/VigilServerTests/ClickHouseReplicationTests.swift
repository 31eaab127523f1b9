import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// `vigil serve --events clickhouse://…&replicated=1` against two shards of two real
/// `clickhouse-server` replicas each, on one real ZooKeeper, all on loopback.
@Suite("events on a replicated ClickHouse cluster", .serialized)
struct ClickHouseReplicationTests {
    /// The tables that keep rows, each with the query that reads its content in a form that
    /// does not depend on how its parts were merged.
    static let contents: [(table: String, query: String)] = [
        ("apm_event_local", "SELECT type, count(), uniqExact(id), sum(cityHash64(id, type, batch_id, fingerprint, payload_json)) "
            + "FROM vigil.apm_event_local GROUP BY type ORDER BY type"),
        ("apm_rollup_sums_local", "SELECT project_id, metric, app_version, day, dimension, sum(event_count), round(sum(total), 3) "
            + "FROM vigil.apm_rollup_sums_local GROUP BY project_id, metric, app_version, day, dimension "
            + "ORDER BY project_id, metric, app_version, day, dimension"),
        ("apm_rollup_histograms_local", "SELECT project_id, metric, app_version, day, dimension, bucket, sum(observations) "
            + "FROM vigil.apm_rollup_histograms_local GROUP BY project_id, metric, app_version, day, dimension, bucket "
            + "ORDER BY project_id, metric, app_version, day, dimension, bucket"),
        ("apm_rollup_sketches_local", "SELECT project_id, metric, app_version, day, dimension, register, maxMerge(rank) "
            + "FROM vigil.apm_rollup_sketches_local GROUP BY project_id, metric, app_version, day, dimension, register "
            + "ORDER BY project_id, metric, app_version, day, dimension, register"),
        ("apm_facet_sums_local", "SELECT project_id, facet, facet_value, metric, app_version, day, dimension, sum(event_count), "
            + "round(sum(total), 3) FROM vigil.apm_facet_sums_local "
            + "GROUP BY project_id, facet, facet_value, metric, app_version, day, dimension "
            + "ORDER BY project_id, facet, facet_value, metric, app_version, day, dimension"),
        ("apm_facet_histograms_local", "SELECT project_id, facet, facet_value, metric, app_version, day, dimension, bucket, "
            + "sum(observations) FROM vigil.apm_facet_histograms_local "
            + "GROUP BY project_id, facet, facet_value, metric, app_version, day, dimension, bucket "
            + "ORDER BY project_id, facet, facet_value, metric, app_version, day, dimension, bucket"),
        ("apm_request_local", "SELECT template, count(), sum(occurred_at), round(sum(total_ms), 3), sum(failed), sum(dns_count) "
            + "FROM vigil.apm_request_local GROUP BY template ORDER BY template"),
    ]

    /// Waits until every replica of every shard has fetched what ZooKeeper's log holds
    /// (`SYSTEM SYNC REPLICA`, table by table), then expects each shard's replicas to hold the
    /// same rows and roll-ups, and the rows of each event once; returns the event rows of the
    /// first replicas, added up.
    static func expectReplicasAgree(_ cluster: ClickHouseTestCluster, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        var rows = 0
        for shard in 0..<cluster.shards.count / cluster.replicas {
            var seen: [String] = []
            for replica in 0..<cluster.replicas {
                let node = cluster.node(shard: shard, replica: replica)
                for (table, _) in contents { _ = try cluster.query(node: node, "SYSTEM SYNC REPLICA vigil.\(table)") }
                seen.append(try contents.map { try cluster.query(node: node, $0.query) }.joined(separator: "\n--\n"))
                let count = try ClickHouseEventsTests.count(cluster, "SELECT count() FROM vigil.apm_event_local", node: node)
                let events = try ClickHouseEventsTests.count(cluster, "SELECT uniqExact(id, type) FROM vigil.apm_event_local", node: node)
                #expect(count == events, "shard \(shard + 1) replica \(replica + 1) holds an event's row twice", sourceLocation: sourceLocation)
                if replica == 0 { rows += count }
            }
            #expect(!seen[0].isEmpty && Set(seen).count == 1, "the replicas of shard \(shard + 1) differ", sourceLocation: sourceLocation)
        }
        return rows
    }

    @Test("with replicated=1 every row and roll-up reaches both replicas of its shard once, through a replica's and ZooKeeper's outage, and the dashboard reads a shard from its second replica while the first is down")
    func replicasHoldEveryRowOnce() throws {
        let zooKeeper = try ZooKeeperTestServer()
        defer { zooKeeper.stop() }
        let cluster = try ClickHouseTestCluster(shards: 2, replicas: 2, zooKeeper: zooKeeper)
        defer { cluster.stop() }
        // Inserting every second: each insert makes a part in seven replicated tables on two
        // replicas, and ZooKeeper's bookkeeping and the merges of parts made every 0.2 s would
        // take much of the two cores the whole test run shares.
        let (plain, server, events) = try ClickHouseEventsTests.pairWithEvents(cluster, flush: 1)
        let sink = try #require(server.app.context.eventSink)
        // Vigil created the tables that keep rows as replicated ones, on every replica.
        for node in cluster.shards.indices {
            let engines = try cluster.query(node: node, """
                SELECT name, engine FROM system.tables WHERE database = 'vigil' AND name LIKE '%_local' AND name != 'apm_contrib_local'
                ORDER BY name
                """).split(separator: "\n")
            #expect(engines.count == 7 && engines.allSatisfy { $0.contains("\tReplicated") }, "\(engines)")
        }
        let linkRows = try ClickHouseEventsTests.count(cluster, "SELECT count() FROM vigil.apm_event WHERE type IN ('issue_link', 'issue_unlink')")
        #expect(try Self.expectReplicasAgree(cluster) == events.count + linkRows)

        // Ingest goes on while shard 2's second replica is down for 10 s: it catches up from
        // ZooKeeper's log once it is back.
        let follower = cluster.node(shard: 1, replica: 1)
        let outage = try ClickHouseEventsTests.ingest(into: [server, plain], seconds: 13) {
            Thread.sleep(forTimeInterval: 2)
            cluster.kill(node: follower)
            Thread.sleep(forTimeInterval: 10)
            try cluster.start(node: follower)
        }
        #expect(sink.drain(timeout: 60), "the spool emptied")
        var total = events.count + outage
        var links = try ClickHouseEventsTests.count(cluster, "SELECT count() FROM vigil.apm_event WHERE type IN ('issue_link', 'issue_unlink')")
        #expect(try Self.expectReplicasAgree(cluster) == total + links)

        // ZooKeeper is lost for 10 s, between two inserts (one it broke would leave the roll-ups
        // short: docs/server.md): the replicated tables turn read-only, the batches wait in the
        // spool, and once the tables have their sessions back every batch is delivered once, its
        // roll-ups whole.
        zooKeeper.kill()
        let lost = Date()
        var backlog: ClickHouseEventSink.Status?
        total += try ClickHouseEventsTests.ingest(into: [server, plain], seconds: 12) {
            // Nothing is sent to a node whose replicated tables cannot all take it.
            let deadline = Date().addingTimeInterval(8)
            var refused: Error?
            while refused == nil && Date() < deadline {
                do { try sink.cluster.insert(shard: 0, Data()) } catch { refused = error }
                if refused == nil { Thread.sleep(forTimeInterval: 0.2) }
            }
            guard case .readOnlyReplicas(let tables)? = refused as? ClickHouseError else {
                throw TestSupportError("an insert while ZooKeeper was down was not refused by Vigil: \(String(describing: refused))")
            }
            #expect(tables.contains("apm_event_local") && tables.contains("apm_rollup_sums_local"), "\(tables)")
            Thread.sleep(forTimeInterval: max(0, 10 - Date().timeIntervalSince(lost)))
            backlog = sink.status()
            try zooKeeper.start()
        }
        #expect(backlog.map { $0.spooledBatches > 0 && $0.failedInserts > 0 } == true,
                "ZooKeeper's outage left batches waiting: \(String(describing: backlog))")
        #expect(sink.drain(timeout: 120), "the spool emptied after ZooKeeper returned")
        #expect(total > 1500)
        links = try ClickHouseEventsTests.count(cluster, "SELECT count() FROM vigil.apm_event WHERE type IN ('issue_link', 'issue_unlink')")
        #expect(try Self.expectReplicasAgree(cluster) == total + links)
        #expect(try ClickHouseEventsTests.count(cluster, "SELECT uniqExact(id) FROM vigil.apm_event WHERE type NOT LIKE 'issue_%'") == total)

        // Shard 2's first replica, the one Vigil writes to, is lost: the Distributed tables read
        // shard 2 from its second replica, and the figures still equal SQLite's.
        cluster.kill(shard: 1)
        let sqlite = plain.app.context.insights, clickhouse = server.app.context.insights
        let now = SampleEvents.time(plusMilliseconds: 3_600_000)
        for filter in [DashboardFilter(range: .all), DashboardFilter(range: .all, osVersion: "18.1"),
                       DashboardFilter(range: .all, release: "3.2.0", page: "Home")] {
            try ClickHouseEventsTests.expectSameFigures(clickhouse, server.project.id, as: sqlite, plain.project.id, filter: filter, now: now)
            try ClickHouseEventsTests.expectSameIssues(clickhouse, server.project.id, as: sqlite, plain.project.id, filter: filter, now: now)
        }
        #expect(try !clickhouse.network(projectID: server.project.id, filter: DashboardFilter(range: .all), now: now).isEmpty)
    }
}
