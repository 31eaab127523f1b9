import Foundation
import Testing
import VigilTestSupport
@testable import VigilServer

/// The two databases every integration test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A `--db` value for a fresh, empty database of this kind: a file in `directory` for
    /// SQLite, a new database in the suite's PostgreSQL server otherwise.
    func freshLocation(in directory: TemporaryDirectory) throws -> DatabaseLocation {
        switch self {
        case .sqlite:
            return .sqlite(path: directory.file("vigil-\(UUID().uuidString.prefix(8)).sqlite").path)
        case .postgres:
            guard let server = SharedPostgres.server else {
                throw TestSupportError("no PostgreSQL server: the test must run inside a suite with the PostgresScope trait")
            }
            return .postgres(url: try server.createDatabase())
        }
    }

    /// A migrated store on a fresh database.
    func makeStore(in directory: TemporaryDirectory) throws -> ServerStore {
        try ServerStore.open(try freshLocation(in: directory))
    }
}

/// The PostgreSQL server of the running suite.
enum SharedPostgres {
    @TaskLocal static var server: PostgresServer?
}

/// Starts one PostgreSQL server around a whole suite (and the suites nested in it) and stops
/// it afterwards, so the `initdb` cost is paid once per test run.
struct PostgresScope: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let server = try PostgresServer()
        defer { server.stop() }
        try await SharedPostgres.$server.withValue(server) {
            try await function()
        }
    }
}

/// The root of every test that needs both databases; suites in other files extend it.
@Suite("Server on SQLite and PostgreSQL", PostgresScope())
struct BothStores {}
