import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// `request_facts`: one narrow row per stored request, read by the filtered request views
    /// and the network breakdown instead of the events' JSON.
    @Suite("request facts")
    struct RequestFactsTests {
        /// The facts of `projectID` by event id.
        static func facts(_ store: ServerStore, projectID: Int64) throws -> [String: [String]] {
            let rows = try store.database.read { connection in
                try connection.query("SELECT * FROM request_facts WHERE project_id = ?", [.integer(projectID)])
            }
            var result: [String: [String]] = [:]
            for row in rows {
                result[row.string("event_id") ?? ""] = ServerStore.requestFactColumns.map { column in
                    let numeric = column == "occurred_at" || column == "status" || column == "failed" || column.hasSuffix("_ms")
                    return (numeric ? row[column].double.map { "\($0)" } : row.string(column)) ?? "nil"
                }
            }
            return result
        }

        @Test("a request whose strings hold U+0000 is stored, with its facts",
              arguments: StoreKind.allCases)
        func nulCharacterInPayload(kind: StoreKind) throws {
            let server = try TestServer(kind)
            var traffic = NetworkBreakdownTests.traffic()
            let index = try #require(traffic.firstIndex { if case .network = $0.payload { true } else { false } })
            guard case .network(var payload) = traffic[index].payload else { return }
            payload.error = "reset\u{0}by peer"
            payload.urlTemplate += "/\u{0}"
            traffic[index].payload = .network(payload)
            #expect(try server.postEvents(traffic).status == 200)
            let facts = try Self.facts(server.store, projectID: server.project.id)
            let row = try #require(facts[traffic[index].id.canonicalString])
            let columns = ServerStore.requestFactColumns
            #expect(row[columns.firstIndex(of: "failed")!] == "1.0")
            #expect(row[columns.firstIndex(of: "template")!].hasPrefix("\(payload.method) "))
        }

        @Test("every stored request has one row holding its payload's values; the migration's fill gives the same rows; pruning removes them",
              arguments: StoreKind.allCases)
        func factsFollowTheEvents(kind: StoreKind) throws {
            let server = try TestServer(kind)
            let now = Date()
            let traffic = NetworkBreakdownTests.traffic() + FilterFixture.events(now: now)
            #expect(try server.postEvents(traffic).status == 200)
            let project = server.project.id
            let facts = try Self.facts(server.store, projectID: project)
            let requests = traffic.compactMap { event -> (Event, NetworkPayload)? in
                if case .network(let payload) = event.payload { return (event, payload) }
                return nil
            }
            #expect(facts.count == requests.count && requests.count == 20)
            let columns = ServerStore.requestFactColumns
            for (event, payload) in requests {
                let row = try #require(facts[event.id.canonicalString])
                func value(_ column: String) -> String { row[columns.firstIndex(of: column)!] }
                #expect(value("template") == "\(payload.method) \(payload.urlTemplate)")
                #expect(value("network") == (event.context.network ?? "unknown"))
                #expect(value("total_ms") == "\(payload.timings.total)")
                #expect(value("ttfb_ms") == payload.timings.ttfb.map { "\($0)" } ?? "nil")
                #expect(value("dns_ms") == payload.timings.dns.map { "\($0)" } ?? "nil")
                #expect(value("status") == payload.status.map { "\(Double($0))" } ?? "nil")
                let failed = payload.error != nil || (payload.status ?? 0) >= 500
                #expect(value("failed") == (failed ? "1.0" : "0.0"))
                #expect(value("app_version") == event.app.version && value("os_version") == event.device.osVersion)
                #expect(value("page") == event.context.page ?? "nil")
            }

            // The migration fills the table from the stored events with the same statement.
            let fill = try #require(Schema.migrations(server.store.dialect)[8].last)
            try server.store.database.write { connection in
                try connection.execute("DELETE FROM request_facts")
                try connection.execute(fill)
            }
            #expect(try Self.facts(server.store, projectID: project) == facts)

            // Pruned requests take their rows with them.
            try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
            let pruned = try server.store.pruneEvents(projectID: project, type: "network", before: now.addingTimeInterval(-24 * 3600),
                                                      limit: 1000)
            #expect(pruned == 19, "all but the filter fixture's request of two hours ago")
            let left = try Self.facts(server.store, projectID: project)
            #expect(left.count == 1 && left.values.first == facts[left.keys.first ?? ""])
        }

        @Test("a version-8 database with requests moves to version 9 with a row per stored request", arguments: StoreKind.allCases)
        func migrationFillsTheFacts(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "facts")
            let location = try kind.freshLocation(in: directory)
            let old = try ServerStore.open(location)
            let (project, _) = try old.createProject(name: "shop")
            try ProcessingTests.ingest(old, project, NetworkBreakdownTests.traffic())
            let facts = try Self.facts(old, projectID: project.id)
            #expect(facts.count == 17)
            try old.database.write { connection in
                try SchemaMigrationTests.undoVersionNine(connection)
                try connection.execute("DELETE FROM vigil_schema WHERE version > 8")
            }
            #expect(try old.schemaVersion() == 8)
            old.database.close()

            let store = try ServerStore.open(location)
            defer { store.database.close() }
            #expect(try store.schemaVersion() == Schema.currentVersion)
            #expect(try Self.facts(store, projectID: project.id) == facts)
        }
    }
}
