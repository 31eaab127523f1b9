import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// `POST /api/v1/reports` with KSCrash's native JSON: the report is detected, stored and
/// diagnosed like an `.ips` file; a recrash of KSCrash's own handler is not stored as the app's.
@Suite("KSCrash report import")
struct KSCrashReportImportTests {
    static func fixture(_ name: String) throws -> Data {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("VigilReportsTests/Fixtures")
        return try Data(contentsOf: directory.appendingPathComponent(name))
    }

    @Test("a KSCrash JSON report is imported and classified; of a recrash file only the original is stored")
    func importKSCrash() throws {
        let server = try EnginesTests.makeServer()
        let headers = ["Authorization": "Bearer \(server.ingestKey)"]
        let answer = try server.client.post("/api/v1/reports", try Self.fixture("kscrash-nsexception.json"), headers: headers)
        #expect(answer.status == 200, "\(answer)")
        #expect((answer.json["accepted"] as? [String])?.count == 1)
        let recrash = try server.client.post("/api/v1/reports", try Self.fixture("kscrash-recrash.json"), headers: headers)
        #expect(recrash.status == 200, "\(recrash)")
        #expect((recrash.json["accepted"] as? [String])?.count == 1, "\(recrash)")
        try server.app.context.processor.drain()
        let issues = try server.store.issues(projectID: server.project.id)
        #expect(issues.count == 2)
        var categories: [String] = []
        for issue in issues {
            let detail = try #require(try server.store.issue(projectID: server.project.id, id: issue.id))
            if let category = detail.classification?.category { categories.append(category) }
        }
        #expect(categories.sorted() == ["null-pointer", "uncaught-exception"], "\(categories)")
    }
}
