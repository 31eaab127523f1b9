import Foundation
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// A real `ServerApplication` on a fresh database of one kind, on a free loopback port, with a
/// known admin token and no background workers (tests drain the processor and run the alert
/// evaluator and deliverer themselves, or turn them on).
final class TestServer: @unchecked Sendable {
    static let adminToken = "va_test_admin_token"

    let directory: TemporaryDirectory
    let app: ServerApplication
    let client: HTTPTestClient
    let ingestKey: String

    var store: ServerStore { app.context.store }
    var project: Project { app.firstStart.defaultProject }

    init(_ kind: StoreKind, configure: (inout ServerOptions) -> Void = { _ in },
         symbolication: (any SymbolicationEngine)? = nil, reportImporter: (any CrashReportImporter)? = nil,
         crashAnalyzer: (any CrashAnalyzer)? = nil, realEngines: Bool = false, extraRoutes: [HTTPRoute] = []) throws {
        directory = try TemporaryDirectory(prefix: "server")
        var options = ServerOptions(database: try kind.freshLocation(in: directory), spoolDirectory: directory.file("spool").path)
        options.adminToken = Self.adminToken
        options.workers = 0
        options.alertWorkers = false
        options.connections = 4
        options.http = HTTPServerConfiguration(threads: 4)
        configure(&options)
        try FileManager.default.createDirectory(atPath: options.spoolDirectory, withIntermediateDirectories: true)
        // The real engines: VigilSymbols and VigilReports, as `vigil serve` plugs them in.
        let engine = realEngines ? VigilSymbolsEngine(scratchDirectory: options.spoolDirectory) : symbolication
        app = try ServerApplication.start(options, symbolication: engine,
                                          reportImporter: realEngines ? VigilReportsImporter() : reportImporter,
                                          crashAnalyzer: realEngines ? VigilReportsAnalyzer() : crashAnalyzer,
                                          extraRoutes: extraRoutes)
        client = HTTPTestClient(port: app.port)
        ingestKey = try requireKey(app.firstStart.defaultProjectKey)
    }

    deinit { app.stop() }

    /// `POST /api/v1/events` with the ingest key.
    func postEvents(_ body: Data, headers: [String: String] = [:]) throws -> HTTPTestClient.Response {
        try client.post("/api/v1/events", body, headers: ["Authorization": "Bearer \(ingestKey)",
                                                          "Content-Type": "application/json"].merging(headers) { $1 })
    }

    /// `POST /api/v1/events` with `events` as a JSON array.
    func postEvents(_ events: [Event]) throws -> HTTPTestClient.Response {
        try postEvents(try EventJSON.makeEncoder().encode(events))
    }

    /// `POST /api/v1/symbols` with the admin token.
    func uploadSymbols(_ body: Data, project: String = "default") throws -> HTTPTestClient.Response {
        try client.post("/api/v1/symbols?project=\(project)", body, headers: ["Authorization": "Bearer \(Self.adminToken)"])
    }

    /// An admin `GET`.
    func adminGet(_ path: String) throws -> HTTPTestClient.Response {
        try client.get(path, headers: ["Authorization": "Bearer \(Self.adminToken)"])
    }
}

private func requireKey(_ key: String?) throws -> String {
    guard let key else { throw TestSupportError("the default project existed already: no key to use") }
    return key
}
