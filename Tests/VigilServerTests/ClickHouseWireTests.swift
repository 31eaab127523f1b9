import Foundation
import Testing
@testable import VigilServer

/// The pure parts of the ClickHouse client: the `--events` URL, HTTP answers, `TabSeparated`
/// fields, SQL literals and the shard of an event.
@Suite("ClickHouse URL, HTTP and TabSeparated parsing")
struct ClickHouseWireTests {
    @Test("an --events URL gives host, port, database, cluster, user and one node per shard")
    func parsesLocation() throws {
        let location = try ClickHouseLocation("clickhouse://ch1.internal:8124/vigil_events?cluster=events&user=vigil&password=s3cret&nodes=ch1:8124,ch2:8125")
        #expect(location.host == "ch1.internal" && location.port == 8124)
        #expect(location.database == "vigil_events" && location.cluster == "events")
        #expect(location.user == "vigil" && location.password == "s3cret")
        #expect(location.nodes?.map(\.host) == ["ch1", "ch2"] && location.nodes?.map(\.port) == [8124, 8125])
        #expect(!location.description.contains("s3cret"), "the password is never printed")
        #expect(try ClickHouseLocation("clickhouse://127.0.0.1/db?cluster=c").port == 8123)
        #expect(location.flushInterval == ClickHouseLocation.defaultFlushInterval)
        let slower = try ClickHouseLocation("clickhouse://127.0.0.1/db?cluster=c&flush=2.5")
        #expect(slower.flushInterval == 2.5 && slower.description.hasSuffix("&flush=2.5"))
    }

    @Test("replicated=1 with nodes= naming each shard's replicas: rows go to each shard's first replica, every replica gets the tables")
    func parsesReplicas() throws {
        let location = try ClickHouseLocation("clickhouse://ch1:8123/vigil?cluster=events&nodes=ch1:8123|ch2:8123,ch3:8124|ch4:8125&replicated=1")
        #expect(location.replicated)
        #expect(location.nodes?.map(\.host) == ["ch1", "ch3"] && location.nodes?.map(\.port) == [8123, 8124])
        #expect(location.replicaNodes?.map { $0.map(\.host) } == [["ch1", "ch2"], ["ch3", "ch4"]])
        #expect(location.description == "clickhouse://ch1:8123/vigil?cluster=events&nodes=ch1:8123|ch2:8123,ch3:8124|ch4:8125&replicated=1")
        #expect(try ClickHouseLocation(location.description) == location)
        #expect(try !ClickHouseLocation("clickhouse://ch1/vigil?cluster=events&replicated=0").replicated)
        // The replicated engines keep each table's rows under its own ZooKeeper path, per shard and replica.
        #expect(ClickHouseSchema.localTable(database: "vigil", replicated: true)
            .contains("ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/vigil/apm_event_local', '{replica}')"))
        let rollups = ClickHouseSchema.rollupTables(database: "vigil", reading: "vigil.apm_contrib_mv", replicated: true).joined()
        #expect(rollups.contains("ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/vigil/apm_facet_sums_local', '{replica}')"))
        #expect(rollups.contains("ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/vigil/apm_rollup_sketches_local', '{replica}')"))
        #expect(ClickHouseSchema.localTable(database: "vigil").contains("ENGINE = MergeTree()"))
    }

    @Test("a bad --events URL is refused with the reason", arguments: [
        "postgres://x/db?cluster=c", "clickhouse://host:8123/?cluster=c", "clickhouse://host:8123/db",
        "clickhouse://host:8123/db;drop?cluster=c", "clickhouse://host:8123/db?cluster=c%27", "clickhouse://host/db?cluster=c&nodes=a",
        "clickhouse://host/db?cluster=c&nodes=a:99999", "clickhouse://host/db?cluster=c&shards=2", "clickhouse:///db?cluster=c",
        "clickhouse://host/db?cluster=c&flush=0", "clickhouse://host/db?cluster=c&flush=soon", "clickhouse://host/db?cluster=c&flush=61",
        "clickhouse://host/db?cluster=c&nodes=a:1|b:2", "clickhouse://host/db?cluster=c&nodes=a:1|,b:2&replicated=1",
        "clickhouse://host/db?cluster=c&replicated=yes", "clickhouse://host/db?cluster=c&nodes=",
    ])
    func refusesBadLocation(_ text: String) {
        #expect(throws: ClickHouseError.self) { try ClickHouseLocation(text) }
    }

    @Test("an HTTP answer with chunked coding, with Content-Length, or read to the end, gives its body")
    func parsesAnswers() throws {
        let chunked = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n".utf8)
        let answer = try BlockingHTTPClient.parse(chunked)
        #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self) == "hello, world" && answer.headers["x-a"] == "b")
        let sized = try BlockingHTTPClient.parse(Array("HTTP/1.1 500 Internal\r\nContent-Length: 4\r\n\r\nCode".utf8))
        #expect(sized.status == 500 && String(decoding: sized.body, as: UTF8.self) == "Code")
        let toEnd = try BlockingHTTPClient.parse(Array("HTTP/1.0 200 OK\r\n\r\nall of it".utf8))
        #expect(String(decoding: toEnd.body, as: UTF8.self) == "all of it")
    }

    @Test("a truncated or garbled HTTP answer is a transport error, never a trap", arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello",
        "SMTP 220 hello\r\n\r\n", "HTTP/1.1 200", "",
    ])
    func refusesBadAnswers(_ text: String) {
        #expect(throws: ClickHouseError.self) { try BlockingHTTPClient.parse(Array(text.utf8)) }
    }

    @Test("TabSeparated fields are unescaped and \\N is NULL")
    func parsesTabSeparated() {
        let rows = ClickHouseNode.parseTabSeparated(Data("a\\tb\t\\N\tx\\\\y\\nz\n3.2.0\t\t'q\\'\n".utf8))
        #expect(rows.count == 2)
        #expect(rows[0] == ["a\tb", nil, "x\\y\nz"])
        #expect(rows[1] == ["3.2.0", "", "'q'"])
        // Empty lines are skipped, a last line needs no newline, an empty last field is kept.
        #expect(ClickHouseNode.parseTabSeparated(Data("x\t\n\n\ny".utf8)) == [["x", ""], ["y"]])
        #expect(ClickHouseNode.parseTabSeparated(Data("\t\n".utf8)) == [["", ""]])
        #expect(ClickHouseNode.parseTabSeparated(Data("Zürich \\\\N\t\\N\t{\"a\":\"\\\\u00e9\"}".utf8))
                == [["Zürich \\N", nil, "{\"a\":\"\\u00e9\"}"]])
        #expect(ClickHouseNode.parseTabSeparated(Data()).isEmpty)
    }

    @Test("a string literal escapes quotes and backslashes, so a value cannot end it")
    func escapesLiterals() {
        #expect(ClickHouseNode.literal("3.2.0") == "'3.2.0'")
        #expect(ClickHouseNode.literal("a' OR 1=1 --") == "'a\\' OR 1=1 --'")
        #expect(ClickHouseNode.literal("back\\slash\0") == "'back\\\\slash\\0'")
    }

    @Test("an event's shard depends only on its id and spreads ids evenly")
    func shardsEvenly() {
        var counts = [0, 0, 0]
        for index in 0..<3000 {
            let id = UUID().uuidString
            let shard = ClickHouseCluster.shard(of: id, shards: 3)
            #expect(shard == ClickHouseCluster.shard(of: Substring(id), shards: 3))
            counts[shard] += 1
            _ = index
        }
        #expect(counts.allSatisfy { $0 > 850 && $0 < 1150 }, "\(counts)")
    }
}
