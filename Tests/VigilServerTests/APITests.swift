import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// The ingest contract of docs/api.md and the other endpoints, over HTTP, on both databases.
    @Suite("API")
    struct APITests {
        @Test("a batch is stored once: accepted ids echo what was sent, a retry stores nothing new", arguments: StoreKind.allCases)
        func ingestStoresOnce(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let events = EventType.allCases.map { SampleEvents.make($0, index: 1) }
            var body = try JSONSerialization.jsonObject(with: EventJSON.makeEncoder().encode(events)) as! [[String: Any]]
            // A client that writes lowercase ids gets them back as written.
            body[0]["id"] = (body[0]["id"] as! String).lowercased()
            let data = try JSONSerialization.data(withJSONObject: body)
            let first = try server.postEvents(data)
            #expect(first.status == 200)
            let accepted = first.json["accepted"] as? [String] ?? []
            #expect(accepted.count == events.count)
            #expect(accepted.first == events[0].id.uuidString.lowercased())
            #expect((first.json["rejected"] as? [Any])?.isEmpty == true)
            #expect(first.json["stored"] as? Int == events.count)
            let retry = try server.postEvents(data)
            #expect(retry.json["accepted"] as? [String] == accepted)
            #expect(retry.json["stored"] as? Int == 0)
            #expect(retry.json["duplicates"] as? Int == events.count)
            #expect(try server.store.eventCounts(projectID: server.project.id).pending == events.count)
        }

        @Test("JSON lines, gzip and X-Vigil-Key are accepted", arguments: StoreKind.allCases)
        func linesAndGzip(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let events = (0..<20).map { SampleEvents.make(.network, index: $0) }
            let body = try GzipDeflater.compress(try EventJSON.encodeLines(events))
            let answer = try server.client.post("/api/v1/events", body, headers: [
                "X-Vigil-Key": server.ingestKey, "Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"])
            #expect(answer.status == 200, "\(answer)")
            #expect((answer.json["accepted"] as? [String])?.count == 20)
        }

        @Test("a partly invalid batch stores the valid events and names each bad one", arguments: StoreKind.allCases)
        func partiallyInvalid(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let good = try EventJSON.encode(SampleEvents.make(.log, index: 1))
            var negative = try JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(.hang, index: 2))) as! [String: Any]
            var payload = negative["payload"] as! [String: Any]
            payload["durationMs"] = -5
            negative["payload"] = payload
            var wrongType = try JSONSerialization.jsonObject(with: EventJSON.encode(SampleEvents.make(.network, index: 3))) as! [String: Any]
            var network = wrongType["payload"] as! [String: Any]
            network["status"] = "teapot"
            wrongType["payload"] = network
            let body = "[" + [String(decoding: good, as: UTF8.self),
                              String(decoding: try JSONSerialization.data(withJSONObject: negative), as: UTF8.self),
                              "{\"id\": \"not an event\"}", "42",
                              String(decoding: try JSONSerialization.data(withJSONObject: wrongType), as: UTF8.self)]
                .joined(separator: ",") + "]"
            let answer = try server.postEvents(Data(body.utf8))
            #expect(answer.status == 200)
            #expect((answer.json["accepted"] as? [String]) == [SampleEvents.make(.log, index: 1).id.uuidString])
            let rejected = answer.json["rejected"] as? [[String: Any]] ?? []
            #expect(rejected.map { $0["index"] as? Int } == [1, 2, 3, 4])
            #expect((rejected[0]["reason"] as? String)?.hasPrefix("payload.durationMs: must not be negative") == true)
            #expect(rejected[1]["id"] as? String == "not an event")
            #expect(rejected[2]["id"] is NSNull)
            #expect((rejected[3]["reason"] as? String)?.hasPrefix("payload.status") == true)
            #expect(try server.store.eventCounts(projectID: server.project.id).pending == 1)
        }

        @Test("bad bodies and bad keys get the statuses of the contract", arguments: StoreKind.allCases)
        func badInput(kind: StoreKind) throws {
            let server = try TestServer(kind) { $0.eventsMaxBytes = 200_000; $0.eventsMaxDecodedBytes = 1_000_000 }
            let event = try EventJSON.makeEncoder().encode([SampleEvents.make(.log, index: 1)])
            #expect(try server.client.post("/api/v1/events", event).status == 401)
            let wrongKey = try server.client.post("/api/v1/events", event, headers: ["Authorization": "Bearer vk_wrong"])
            #expect(wrongKey.status == 401)
            #expect(wrongKey.json["reason"] as? String == "unknown ingest key")
            let malformed = try server.postEvents(Data("[{\"schema\": 1,".utf8))
            #expect(malformed.status == 400)
            #expect(malformed.json["error"] as? String == "malformed_body")
            #expect(try server.postEvents(event, headers: ["Content-Type": "application/xml"]).status == 415)
            #expect(try server.postEvents(Data(count: 200_001)).status == 413)
            let bomb = try GzipDeflater.compress(Data(repeating: 0x20, count: 20_000_000), level: 9)
            let inflated = try server.postEvents(bomb, headers: ["Content-Encoding": "gzip"])
            #expect(inflated.status == 413)
            #expect(try server.postEvents(Data("not gzip".utf8), headers: ["Content-Encoding": "gzip"]).status == 400)
            // Nothing of the above was stored.
            #expect(try server.store.eventCounts(projectID: server.project.id).pending == 0)
            // Admin endpoints refuse the ingest key and an unknown project is a 404.
            let asIngest = try server.client.get("/api/v1/issues", headers: ["Authorization": "Bearer \(server.ingestKey)"])
            #expect(asIngest.status == 401)
            #expect(try server.adminGet("/api/v1/issues?project=nope").status == 404)
            #expect(try server.adminGet("/api/v1/issues?sort=sideways").status == 400)
        }

        @Test("SQL and HTML injection strings in every string field are stored verbatim", arguments: StoreKind.allCases)
        func injectionStoredVerbatim(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let hostile = "'); DROP TABLE apm_event; -- <script>alert(\"x\")</script> &amp; \\ %s ?"
            var event = SampleEvents.make(.network, index: 4)
            event.app = AppInfo(id: hostile, version: hostile, build: hostile)
            event.device = DeviceInfo(model: hostile, os: hostile, osVersion: hostile, arch: hostile)
            event.context = EventContext(page: hostile, appState: hostile, network: hostile)
            // Tag keys are bounded to 64 bytes by the sanitizer; this one fits.
            let hostileKey = "k'); -- <b>\"&amp;"
            event.tags = [hostileKey: hostile]
            if case .network(var network) = event.payload {
                network.method = hostile
                network.urlTemplate = hostile
                network.host = hostile
                network.error = hostile
                event.payload = .network(network)
            }
            let answer = try server.postEvents([event])
            #expect(answer.json["stored"] as? Int == 1, "\(answer)")
            let stored = try #require(try server.store.storedEvent(projectID: server.project.id, id: event.id.uuidString))
            #expect(stored.record.appID == hostile)
            #expect(stored.record.appVersion == hostile)
            #expect(stored.record.deviceModel == hostile)
            #expect(stored.record.page == hostile)
            let decoded = try JSONDecoder().decode(NetworkPayload.self, from: Data(stored.record.payloadJSON.utf8))
            #expect(decoded.urlTemplate == hostile && decoded.error == hostile)
            #expect(try JSONDecoder().decode([String: String].self, from: Data(stored.record.tagsJSON.utf8)) == [hostileKey: hostile])
        }

        @Test("remote config: admin PUT with validation, ingest-key GET with ETag and 304", arguments: StoreKind.allCases)
        func remoteConfig(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let key = ["Authorization": "Bearer \(server.ingestKey)"]
            let initial = try server.client.get("/api/v1/config", headers: key)
            #expect(initial.status == 200)
            #expect(initial.text == "{}", "a project without a document gets every default")
            #expect(initial.headers["etag"] != nil)
            let document = Data(#"{"schema":1,"enabled":false,"sampling":{"network":0.25}}"#.utf8)
            let admin = ["Authorization": "Bearer \(TestServer.adminToken)"]
            #expect(try server.client.send("PUT", "/api/v1/config", headers: key, body: document).status == 401)
            let bad = try server.client.send("PUT", "/api/v1/config", headers: admin,
                                             body: Data(#"{"sampling":{"network":3},"refreshSeconds":1}"#.utf8))
            #expect(bad.status == 400)
            #expect(bad.json["error"] as? String == "invalid_config")
            let issues = bad.json["issues"] as? [[String: Any]] ?? []
            #expect(Set(issues.compactMap { $0["field"] as? String }) == ["sampling.network", "refreshSeconds"], "\(bad)")
            let wrongType = try server.client.send("PUT", "/api/v1/config", headers: admin, body: Data(#"{"enabled":"yes"}"#.utf8))
            #expect(wrongType.status == 400)
            #expect((wrongType.json["reason"] as? String)?.hasPrefix("enabled") == true, "\(wrongType)")
            let put = try server.client.send("PUT", "/api/v1/config", headers: admin, body: document)
            #expect(put.status == 200)
            let etag = try #require(put.headers["etag"])
            let fetched = try server.client.get("/api/v1/config", headers: key)
            #expect(fetched.json["enabled"] as? Bool == false)
            #expect(fetched.headers["etag"] == etag)
            #expect(try server.client.get("/api/v1/config", headers: key.merging(["If-None-Match": etag]) { $1 }).status == 304)
        }

        @Test("reports and symbols say clearly what this build cannot do yet", arguments: [StoreKind.sqlite])
        func unavailableEngines(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let report = try server.client.post("/api/v1/reports", Data("Incident Identifier: X".utf8),
                                                headers: ["Authorization": "Bearer \(server.ingestKey)"])
            #expect(report.status == 415)
            #expect((report.json["reason"] as? String)?.contains("/api/v1/events") == true)
            let symbols = try server.client.post("/api/v1/symbols", Data("ELF".utf8),
                                                 headers: ["Authorization": "Bearer \(TestServer.adminToken)"])
            #expect(symbols.status == 501)
        }

        @Test("the rate limit answers 429 with Retry-After per key", arguments: [StoreKind.sqlite])
        func rateLimit(kind: StoreKind) throws {
            let server = try TestServer(kind) { $0.rateLimitPerSecond = 1; $0.rateLimitBurst = 3 }
            let body = try EventJSON.makeEncoder().encode([SampleEvents.make(.log, index: 1)])
            let statuses = try (0..<5).map { _ in try server.postEvents(body).status }
            #expect(statuses.prefix(3).allSatisfy { $0 == 200 })
            #expect(statuses.last == 429)
            let limited = try server.postEvents(body)
            #expect(limited.status == 429)
            #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
            let metrics = try server.client.get("/metrics")
            let refused = statuses.filter { $0 == 429 }.count + 1
            #expect(metrics.text.contains("vigil_rate_limited_total \(refused)"))
        }

        @Test("metrics and health report in their formats", arguments: StoreKind.allCases)
        func metricsAndHealth(kind: StoreKind) throws {
            let server = try TestServer(kind)
            _ = try server.postEvents([SampleEvents.make(.log, index: 1), SampleEvents.make(.log, index: 1)])
            let health = try server.client.get("/healthz")
            #expect(health.status == 200)
            #expect(health.json["database"] as? String == kind.rawValue)
            let metrics = try server.client.get("/metrics")
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
            for line in ["vigil_events_accepted_total 2", "vigil_events_stored_total 1", "vigil_events_duplicate_total 1",
                         "vigil_events_pending 1", "vigil_http_requests_total{route=\"events\",status=\"200\"} 1"] {
                #expect(metrics.text.contains(line), "missing \(line)")
            }
            #expect(metrics.text.contains("vigil_database_size_bytes "))
        }

        @Test("the /healthz example in docs/api.md is what the server answers", arguments: StoreKind.allCases)
        func healthExampleInTheDocs(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let health = try server.client.get("/healthz")
            #expect(health.status == 200)
            let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/api.md")
            let text = try String(contentsOf: docs, encoding: .utf8)
            let section = try #require(text.range(of: "## `GET /healthz`"))
            let fence = try #require(text.range(of: "```json\n", range: section.upperBound..<text.endIndex))
            let end = try #require(text.range(of: "\n```", range: fence.upperBound..<text.endIndex))
            let example = try #require(try JSONSerialization.jsonObject(with: Data(text[fence.upperBound..<end.lowerBound].utf8))
                as? [String: Any])
            #expect(Set(example.keys) == Set(health.json.keys))
            #expect(example["status"] as? String == health.json["status"] as? String)
            #expect(example["schema"] as? Int == health.json["schema"] as? Int, "docs/api.md shows another schema version")
            #expect(example["schema"] as? Int == Schema.currentVersion)
            #expect(["sqlite", "postgres"].contains(example["database"] as? String ?? ""))
        }
    }
}
