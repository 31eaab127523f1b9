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

        /// A store of `kind` at the current version holding three processed hang events, the
        /// place it lives and what went in; `directory` must outlive it.
        static func storeWithHangs(_ kind: StoreKind, in directory: TemporaryDirectory) throws
            -> (location: DatabaseLocation, store: ServerStore, project: Project, events: [Event]) {
            let location = try kind.freshLocation(in: directory)
            let store = try ServerStore.open(location)
            let (project, _) = try store.createProject(name: "shop")
            let events = (0..<3).map { ProcessingTests.hang(index: $0) }
            try ProcessingTests.ingest(store, project, events)
            try ProcessingTests.makeProcessor(store).drain()
            return (location, store, project, events)
        }

        @Test("a version-1 database with events moves to version 2: the issue index keeps only events with an issue",
              arguments: StoreKind.allCases)
        func versionOneToTwo(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "migration")
            let (location, old, project, _) = try Self.storeWithHangs(kind, in: directory)
            // Back to what version 1 left: the full index, the version row gone.
            try old.database.write { connection in
                try connection.execute("DROP INDEX apm_event_issue")
                try connection.execute("CREATE INDEX apm_event_issue ON apm_event (issue_id, occurred_at)")
                try Self.undoVersionFive(connection)
                try connection.execute("DROP TABLE event_counts")
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

        /// Takes back what version 5 added (release health), so that an older database is
        /// modelled; migrating again must add it back with the rows kept.
        static func undoVersionFive(_ connection: any DatabaseConnection) throws {
            try undoVersionNine(connection)
            try undoVersionSeven(connection)
            try undoVersionSix(connection)
            try connection.execute("DROP TABLE rollup_sketches")
            try connection.execute("ALTER TABLE apm_event DROP COLUMN user_key")
        }

        /// Takes back what version 12 added (a frame window's counts as columns).
        static func undoVersionTwelve(_ connection: any DatabaseConnection) throws {
            for column in ServerStore.frameCountColumns {
                try connection.execute("ALTER TABLE apm_event DROP COLUMN \(column)")
            }
        }

        @Test("a version-11 database moves to version 12: stored frame windows get their counts as columns, the filtered frame views equal the roll-ups'",
              arguments: StoreKind.allCases)
        func versionElevenToTwelve(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "migration-12")
            let location = try kind.freshLocation(in: directory)
            let old = try ServerStore.open(location)
            let (project, _) = try old.createProject(name: "shop")
            let now = Date()
            try ProcessingTests.ingest(old, project, FilterFixture.events(now: now))
            try ProcessingTests.makeProcessor(old).drain()
            try old.database.write { connection in
                try Self.undoVersionTwelve(connection)
                try connection.execute("DELETE FROM vigil_schema WHERE version > 11")
                // A count written as a decimal (`0.0`) must not fail the migration.
                try connection.execute("UPDATE apm_event SET payload_json = REPLACE(payload_json, '\"severe\":0', '\"severe\":0.0') WHERE type = 'frames'")
            }
            #expect(try old.schemaVersion() == 11)
            let decimals = try old.database.read { connection in
                try connection.scalar("SELECT COUNT(*) FROM apm_event WHERE payload_json LIKE '%\"severe\":0.0%'").int64 ?? 0
            }
            #expect(decimals == 3)
            old.database.close()

            let store = try ServerStore.open(location)
            defer { store.database.close() }
            #expect(try store.schemaVersion() == Schema.currentVersion)
            let counts = try store.database.read { connection in
                try connection.query("SELECT type, \(ServerStore.frameCountColumns.joined(separator: ", ")) FROM apm_event ORDER BY type, frames_dropped")
            }
            let windows = counts.filter { $0.string("type") == "frames" }
            #expect(windows.map { $0.int64("frames_dropped") } == [6, 12, 18])
            #expect(windows.map { $0.int64("frames_slow") } == [1, 2, 3] && windows.map { $0.int64("frames_frozen") } == [1, 0, 0])
            #expect(windows.allSatisfy { $0.int64("frames_rendered") == 60 && $0["frames_severe"].int64 == 0 })
            #expect(counts.filter { $0.string("type") != "frames" }.allSatisfy { $0["frames_rendered"].isNull }, "other rows stay NULL")
            // Every frame window is on iOS 17.5 or 18.1: the two OS filters (events) add up to the roll-ups.
            let aggregates = EventAggregates(store: store)
            let byOS = try ["17.5", "18.1"].flatMap { os in
                try aggregates.frames(projectID: project.id, filter: DashboardFilter(query: ["os": os, "range": "all"]), now: now)
            }
            let rollups = try Insights(store: store).frames(projectID: project.id)
            #expect(byOS.reduce(0) { $0 + $1.slow } == rollups.reduce(0) { $0 + $1.slow })
            #expect(byOS.reduce(0) { $0 + $1.frozen } == 1 && byOS.reduce(0) { $0 + $1.dropped } == 36)
        }

        /// Takes back what version 11 added (alert rules' window and resumption, the pruning indexes).
        static func undoVersionEleven(_ connection: any DatabaseConnection) throws {
            try undoVersionTwelve(connection)
            try connection.execute("DROP INDEX alert_outbox_finished")
            try connection.execute("DROP INDEX alert_deliveries_time")
            try connection.execute("ALTER TABLE alert_rules DROP COLUMN window_seconds")
            try connection.execute("ALTER TABLE alert_rules DROP COLUMN resumed_at")
        }

        /// Takes back what version 9 added (request facts, the issue-count index), and what came after.
        static func undoVersionNine(_ connection: any DatabaseConnection) throws {
            try undoVersionEleven(connection)
            try connection.execute("DROP TABLE request_facts")
            try connection.execute("DROP INDEX apm_event_issue_counts")
        }

        /// Takes back what version 7 added (alerts).
        static func undoVersionSeven(_ connection: any DatabaseConnection) throws {
            for table in ["alert_rules", "alert_cooldowns", "alert_outbox", "alert_deliveries"] {
                try connection.execute("DROP TABLE \(table)")
            }
        }

        /// Takes back what version 6 added (issue workflow, retention).
        static func undoVersionSix(_ connection: any DatabaseConnection) throws {
            for column in ["status", "resolution", "resolved_in", "resolved_at", "ignore_until_events", "ignore_until",
                           "regressed_version", "regressed_at", "upsert_new"] {
                try connection.execute("ALTER TABLE issues DROP COLUMN \(column)")
            }
            try connection.execute("DROP TABLE issue_audit")
            try connection.execute("DROP TABLE issue_pruned")
            try connection.execute("ALTER TABLE issue_users DROP COLUMN pruned")
        }

        /// Text columns of the server's tables on PostgreSQL whose collation is not `"C"`.
        static func localeCollatedColumns(_ store: ServerStore) throws -> [String] {
            try store.database.read { connection in
                try connection.query("""
                    SELECT t.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid
                    WHERE t.relnamespace = current_schema()::regnamespace AND t.relkind = 'r' AND a.attnum > 0
                      AND NOT a.attisdropped AND a.atttypid = 'text'::regtype AND a.attcollation <> '"C"'::regcollation
                    ORDER BY 1
                    """).compactMap { $0[0].string }
            }
        }

        @Test("a version-2 database moves to version 3: on PostgreSQL every text column compares by bytes and JSON uses lz4, rows and issues kept",
              arguments: StoreKind.allCases)
        func versionTwoToThree(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "migration")
            let (location, old, project, events) = try Self.storeWithHangs(kind, in: directory)
            let postgres = old.dialect == .postgres
            if postgres { #expect(try Self.localeCollatedColumns(old).isEmpty) }
            // Back to what version 2 left: the database's own collation, pglz, the version row gone.
            try old.database.write { connection in
                if postgres {
                    for column in ["id", "type", "app_version", "payload_json"] {
                        try connection.execute("ALTER TABLE apm_event ALTER COLUMN \(column) TYPE text COLLATE \"default\"")
                    }
                    try connection.execute("ALTER TABLE issues ALTER COLUMN fingerprint TYPE text COLLATE \"default\"")
                    try connection.execute("ALTER TABLE apm_event ALTER COLUMN payload_json SET COMPRESSION pglz")
                }
                try Self.undoVersionFive(connection)
                try connection.execute("DROP TABLE event_counts")
                try connection.execute("DELETE FROM vigil_schema WHERE version > 2")
            }
            #expect(try old.schemaVersion() == 2)
            if postgres {
                #expect(try Self.localeCollatedColumns(old)
                    == ["apm_event.app_version", "apm_event.id", "apm_event.payload_json", "apm_event.type", "issues.fingerprint"])
            }
            old.database.close()

            let store = try ServerStore.open(location)
            defer { store.database.close() }
            #expect(try store.schemaVersion() == Schema.currentVersion)
            if postgres {
                #expect(try Self.localeCollatedColumns(store).isEmpty)
                let (lz4Available, compression) = try store.database.read { connection in
                    (try connection.scalar(
                        "SELECT COUNT(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)").int == 1,
                     try connection.scalar(
                        "SELECT attcompression::text FROM pg_attribute WHERE attrelid = 'apm_event'::regclass AND attname = 'payload_json'").string)
                }
                #expect(compression == (lz4Available ? "l" : "p"))
            }
            let issues = try store.issues(projectID: project.id)
            #expect(issues.map { Int($0.events) }.reduce(0, +) == 3)
            for issue in issues {
                #expect(try store.issueEvents(projectID: project.id, issueID: issue.id).count == Int(issue.events))
            }
            // The rebuilt primary key still finds every event: sent again, none is stored twice.
            try ProcessingTests.ingest(store, project, events)
            #expect(try store.database.read { try $0.scalar("SELECT COUNT(*) FROM apm_event").int } == 3)
        }

        @Test("a version-3 database moves to version 4: the event counts start from the events it holds", arguments: StoreKind.allCases)
        func versionThreeToFour(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "migration")
            let (location, old, project, events) = try Self.storeWithHangs(kind, in: directory)
            try old.database.write { connection in
                try Self.undoVersionFive(connection)
                try connection.execute("DROP TABLE event_counts")
                try connection.execute("DELETE FROM vigil_schema WHERE version > 3")
            }
            #expect(try old.schemaVersion() == 3)
            old.database.close()

            let store = try ServerStore.open(location)
            defer { store.database.close() }
            #expect(try store.schemaVersion() == Schema.currentVersion)
            #expect(try store.eventCounts(projectID: project.id) == (pending: 0, processed: events.count, reprocess: 0))
            // And they are kept from there on.
            let more = (3..<5).map { ProcessingTests.hang(index: $0) }
            try ProcessingTests.ingest(store, project, more)
            #expect(try store.eventCounts(projectID: project.id) == (pending: more.count, processed: events.count, reprocess: 0))
            #expect(try store.scannedEventCounts(projectID: project.id) == store.eventCounts(projectID: project.id))
        }
    }
}
