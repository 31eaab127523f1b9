import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// Databases written by an older server are brought up to date at start.
    @Suite("schema migration")
    struct SchemaMigrationTests {
        /// The definition of `apm_event_issue` as the database reports it.
        static func issueIndexDefinition(_ store: ServerStore) throws -> String {
            try store.database.read { connection in
                let sql = connection.dialect == .sqlite
                    ? "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'apm_event_issue'"
                    : "SELECT indexdef FROM pg_indexes WHERE indexname = 'apm_event_issue'"
                return try connection.scalar(sql).string ?? ""
            }
        }

        @Test("a version-1 database with events moves to version 2: the issue index keeps only events with an issue",
              arguments: StoreKind.allCases)
        func versionOneToTwo(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "migration")
            let location = try kind.freshLocation(in: directory)
            let old = try ServerStore.open(location)
            let (project, _) = try old.createProject(name: "shop")
            try ProcessingTests.ingest(old, project, (0..<3).map { ProcessingTests.hang(index: $0) })
            try ProcessingTests.makeProcessor(old).drain()
            // Back to what version 1 left: the full index, the version row gone.
            try old.database.write { connection in
                try connection.execute("DROP INDEX apm_event_issue")
                try connection.execute("CREATE INDEX apm_event_issue ON apm_event (issue_id, occurred_at)")
                try connection.execute("DELETE FROM vigil_schema WHERE version > 1")
            }
            #expect(try old.schemaVersion() == 1)
            #expect(!(try Self.issueIndexDefinition(old)).uppercased().contains("WHERE"))
            old.database.close()

            let store = try ServerStore.open(location)
            defer { store.database.close() }
            #expect(try store.schemaVersion() == Schema.currentVersion)
            #expect(try Self.issueIndexDefinition(store).uppercased().contains("IS NOT NULL"))
            let issue = try #require(try store.issues(projectID: project.id).first)
            #expect(try store.issueEvents(projectID: project.id, issueID: issue.id).count == Int(issue.events))
        }
    }
}
