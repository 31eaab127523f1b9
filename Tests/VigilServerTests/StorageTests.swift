import Foundation
import Testing
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// The storage layer: connections, transactions, schema and the project and event tables.
    @Suite("storage")
    struct StorageTests {
        @Test("parameters round-trip every value type, including hostile text", arguments: StoreKind.allCases)
        func valueRoundTrip(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let blobType = store.dialect.blob
            let hostile = "'); DROP TABLE projects; -- \"quoted\" ? $1 <script>alert(1)</script> ünïcødé 🚀"
            let blob = Data([0, 1, 2, 0xFF, 0x5C, 0x78])
            let row = try store.database.write { connection -> SQLRow? in
                try connection.execute("CREATE TABLE roundtrip (i BIGINT, r DOUBLE PRECISION, t TEXT, b \(blobType), n TEXT)")
                try connection.execute("INSERT INTO roundtrip VALUES (?, ?, ?, ?, ?)",
                                       [.integer(Int64.min + 1), .real(-1.5e-7), .text(hostile), .blob(blob), .null])
                return try connection.first("SELECT * FROM roundtrip WHERE t = ?", [.text(hostile)])
            }
            let found = try #require(row)
            #expect(found["i"].int64 == Int64.min + 1)
            #expect(found["r"].double == -1.5e-7)
            #expect(found["t"].string == hostile)
            #expect(found["b"].data == blob)
            #expect(found["n"].isNull)
            #expect(try store.projects().isEmpty, "the projects table survived the hostile text")
        }

        @Test("empty text, an empty blob and many parameters in one statement round-trip", arguments: StoreKind.allCases)
        func emptyAndManyValues(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let blobType = store.dialect.blob
            let rows = 400
            let found = try store.database.write { connection -> [SQLRow] in
                try connection.execute("CREATE TABLE many (i BIGINT, t TEXT, b \(blobType), n TEXT)")
                var arguments: [SQLValue] = []
                for index in 0..<rows {
                    arguments += [.integer(Int64(index)), .text(index == 0 ? "" : "row \(index) ü"),
                                  .blob(index == 0 ? Data() : Data([UInt8(index & 0xFF), 0])), .null]
                }
                let values = Array(repeating: "(?, ?, ?, ?)", count: rows).joined(separator: ", ")
                #expect(try connection.execute("INSERT INTO many VALUES \(values)", arguments) == rows)
                return try connection.query("SELECT i, t, b, n FROM many ORDER BY i", [])
            }
            #expect(found.count == rows)
            #expect(found.first?["t"].string == "")
            #expect(found.first?["b"].data == Data())
            #expect(found.last?["t"].string == "row \(rows - 1) ü")
            #expect(found.last?["b"].data == Data([UInt8((rows - 1) & 0xFF), 0]))
            #expect(found.allSatisfy { $0["n"].isNull })
        }

        @Test("bulk row inserts (COPY on PostgreSQL) keep tabs, newlines, backslashes and NULLs; a stored key fails them",
              arguments: StoreKind.allCases)
        func bulkInsertRows(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let blobType = store.dialect.blob
            let awkward = "tab\there\nnew line\r\\N not null \\ back\\slash {\"json\": \"a\\u0000b\"} 🚀"
            let columns = ["i", "r", "t", "b", "n"]
            var values: [SQLValue] = []
            for index in 0..<250 {
                values += [.integer(Int64(index)), .real(index == 1 ? -1.5e-7 : Double(index) / 4), .text(index == 0 ? "" : awkward),
                           .blob(Data([UInt8(index & 0xFF), 0, 0x5C, 0x09])), .null]
            }
            let found = try store.database.write { connection -> [SQLRow] in
                try connection.execute("CREATE TABLE bulk (i BIGINT PRIMARY KEY, r DOUBLE PRECISION, t TEXT, b \(blobType), n TEXT)")
                #expect(try connection.insertRows(into: "bulk", columns: columns, values: values) == 250)
                return try connection.query("SELECT i, r, t, b, n FROM bulk ORDER BY i", [])
            }
            #expect(found.count == 250)
            #expect(found[0]["t"].string == "")
            #expect(found[1]["r"].double == -1.5e-7)
            #expect(found[249]["t"].string == awkward)
            #expect(found[249]["b"].data == Data([249, 0, 0x5C, 0x09]))
            #expect(found.allSatisfy { $0["n"].isNull })
            // Row 7 again: the whole call fails as a unique violation, and the transaction rolls back.
            let again: [SQLValue] = [.integer(1_000), .real(0), .text("new"), .null, .null,
                                     .integer(7), .real(0), .text("duplicate"), .null, .null]
            let failure = #expect(throws: DatabaseError.self) {
                try store.database.write { connection in
                    try connection.insertRows(into: "bulk", columns: columns, values: again)
                }
            }
            #expect(failure?.isUniqueViolation == true, "\(String(describing: failure))")
            let count = try store.database.read { try $0.scalar("SELECT COUNT(*) FROM bulk").int64 }
            #expect(count == 250)
            // A ragged value list is refused before anything is sent.
            #expect(throws: DatabaseError.self) {
                try store.database.write { try $0.insertRows(into: "bulk", columns: columns, values: [.integer(2_000)]) }
            }
        }

        @Test("a throwing transaction leaves nothing behind", arguments: StoreKind.allCases)
        func rollback(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            struct Planned: Error {}
            #expect(throws: Planned.self) {
                try store.database.write { connection in
                    try connection.execute("INSERT INTO settings (name, value) VALUES (?, ?)", ["a", "b"])
                    throw Planned()
                }
            }
            #expect(try store.setting("a") == nil)
        }

        @Test("errors keep the backend's code, message and SQL", arguments: StoreKind.allCases)
        func errorsCarryContext(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            do {
                _ = try store.database.read { try $0.execute("SELECT no_such_column FROM projects") }
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.sql?.contains("no_such_column") == true)
                #expect(error.message.contains("no_such_column"))
                #expect(kind == .postgres ? error.code == "42703" : error.code == "1")
            }
        }

        @Test("migration is idempotent and records the schema version", arguments: StoreKind.allCases)
        func migration(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let location = try kind.freshLocation(in: directory)
            let first = try ServerStore.open(location)
            _ = try first.createProject(name: "kept")
            first.database.close()
            let second = try ServerStore.open(location)
            defer { second.database.close() }
            #expect(try second.schemaVersion() == Schema.currentVersion)
            #expect(try second.projects().map(\.name) == ["kept"])
        }

        @Test("projects: keys are stored hashed, names are unique, keys rotate", arguments: StoreKind.allCases)
        func projects(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, key) = try store.createProject(name: "shop")
            #expect(key.hasPrefix("vk_") && key.count == 67)
            #expect(try store.project(ingestKeyHash: SecretToken.hash(key)) == project)
            let stored = try store.database.read { try $0.scalar("SELECT ingest_key_hash FROM projects").string }
            #expect(stored == SecretToken.hash(key))
            #expect(stored?.contains(key) == false)
            #expect(throws: ProjectError.nameTaken("shop")) { _ = try store.createProject(name: "shop") }
            #expect(throws: ProjectError.self) { _ = try store.createProject(name: "bad\nname") }
            let (again, noKey) = try store.ensureProject(name: "shop")
            #expect(again == project && noKey == nil)
            let rotated = try store.rotateIngestKey(projectID: project.id)
            #expect(try store.project(ingestKeyHash: SecretToken.hash(key)) == nil)
            #expect(try store.project(ingestKeyHash: SecretToken.hash(rotated)) == project)
        }

        @Test("events: a batch is stored once; repeated ids are skipped", arguments: StoreKind.allCases)
        func eventsStoredOnce(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "p")
            let records = (0..<250).map { Self.record(index: $0) }
            let first = try store.insertEvents(projectID: project.id, records)
            #expect(first.count == 250)
            let second = try store.insertEvents(projectID: project.id, Array(records[200...]) + [Self.record(index: 999)])
            #expect(second == ["E-999"])
            #expect(try store.eventCounts(projectID: project.id).pending == 251)
            let stored = try #require(try store.storedEvent(projectID: project.id, id: "E-7"))
            #expect(stored.record == records[7])
            #expect(stored.state == 0)
        }

        @Test("settings: insert-if-absent lets exactly one writer win", arguments: StoreKind.allCases)
        func settingsOnce(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "store")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let wins = Counter()
            DispatchQueue.concurrentPerform(iterations: 6) { index in
                if (try? store.insertSettingIfAbsent("token", "v\(index)")) == true { wins.add() }
            }
            #expect(wins.value == 1)
            try store.setSetting("token", "replaced")
            #expect(try store.setting("token") == "replaced")
        }

        static func record(index: Int) -> EventRecord {
            EventRecord(id: "E-\(index)", type: "network", occurredAt: 1_795_985_323_123 + Int64(index), appID: "com.example",
                        appVersion: "1.0", appBuild: "1", os: "iOS", osVersion: "18.1", deviceModel: "iPhone14,2",
                        page: index % 2 == 0 ? "Home" : nil, sessionID: "S", durationMs: index % 3 == 0 ? nil : 12.5,
                        tagsJSON: "{}", payloadJSON: "{\"n\":\(index)}", imagesJSON: nil, contextJSON: "{}")
        }
    }
}

/// The SQLite file's background WAL sync.
@Suite("sqlite WAL sync")
struct WALSyncTests {
    @Test("follows the WAL file: nothing while it is missing, the file once it exists, the new one after a replacement")
    func followsTheFile() throws {
        let directory = try TemporaryDirectory(prefix: "walsync")
        let path = directory.url.appendingPathComponent("db.sqlite-wal").path
        var wal = WALFile(path: path)
        defer { wal.close() }
        wal.sync()
        #expect(wal.inode == nil)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("first".utf8)))
        wal.sync()
        let first = try #require(wal.inode)
        try FileManager.default.removeItem(atPath: path)
        // Keep the old inode alive elsewhere so the new file cannot reuse its number.
        #expect(FileManager.default.createFile(atPath: path, contents: Data("second".utf8)))
        wal.sync()
        let second = try #require(wal.inode)
        #expect(second != first)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(UInt64((attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0) == second)
    }

    @Test("a database under write load keeps its WAL synced and checkpointed in the background")
    func underLoad() throws {
        let directory = try TemporaryDirectory(prefix: "walsync-db")
        let database = try SQLiteDatabase(path: directory.url.appendingPathComponent("db.sqlite").path,
                                          checkpointSeconds: 0.05, walSyncSeconds: 0.01)
        defer { database.close() }
        try database.write { try $0.execute("CREATE TABLE t (i INTEGER PRIMARY KEY, v TEXT)") }
        let text = String(repeating: "x", count: 2_000)
        let deadline = Date().addingTimeInterval(0.5)
        var rows: Int64 = 0
        while Date() < deadline {
            try database.write { connection in
                for _ in 0..<50 {
                    rows += 1
                    try connection.execute("INSERT INTO t (i, v) VALUES (?, ?)", [.integer(rows), .text(text)])
                }
            }
        }
        let count = try database.read { try $0.first("SELECT COUNT(*) AS n FROM t", []) }
        #expect(count?["n"].int64 == rows)
    }
}
