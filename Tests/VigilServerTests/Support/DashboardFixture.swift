import Foundation
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// A server with processed data on every dashboard page, hostile strings included.
enum DashboardFixture {
    /// Text that must never reach a page unescaped.
    static let hostile = "<script>alert('vigil')</script>&\"x\""

    /// Fills `server` (SQLite or PostgreSQL) and processes everything.
    static func populate(_ server: TestServer) throws {
        var upload = TableSymbolication.sampleUpload()
        upload.ranges[1].function = "AppDelegate.main() \(hostile)"
        try server.store.storeSymbols(projectID: server.project.id, try TableSymbolication.slices([upload]))
        var events: [Event] = []
        for index in 0..<40 {
            let type = EventType.allCases[index % EventType.allCases.count]
            var event = type == .hang ? ProcessingTestsFixture.hang(index: index) : SampleEvents.make(type, index: index)
            event.id = UUID()
            // Recent, so that the dashboard's default range (the last 30 days) shows it whatever the date.
            event.time = Date().addingTimeInterval(-3600 + Double(index))
            event.app.version = index % 2 == 0 ? "3.2.0" : "3.3.0 \(hostile)"
            event.context.page = index % 3 == 0 ? "Checkout \(hostile)" : "Home"
            if case .network(var network) = event.payload {
                network.urlTemplate = "https://api.example.com/\(hostile)/:id"
                event.payload = .network(network)
            }
            events.append(event)
        }
        let answer = try server.postEvents(events)
        guard answer.status == 200, (answer.json["rejected"] as? [Any])?.isEmpty == true else {
            throw TestSupportError("fixture events were refused: \(answer)")
        }
        try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
    }

    /// Every page path, with an issue id for the detail page.
    static func pages(_ server: TestServer) throws -> [String] {
        let issue = try server.store.issues(projectID: server.project.id, kind: "hang").first?.id ?? 1
        return ["/", "/issues", "/issues?kind=hang&sort=users", "/issues/\(issue)", "/hangs", "/network", "/launch", "/frames",
                "/compare", "/symbols", "/network/breakdown", "/releases"]
    }
}

/// Events shaped like the processing tests' hangs (main image plus a system image).
enum ProcessingTestsFixture {
    static func hang(index: Int) -> Event {
        var event = SampleEvents.make(.hang, index: index)
        let base = SampleEvents.mainImage.loadAddress.value
        let stack = [Address(base + 0x1a40), Address(base + 0x0f10), Address(0x1_e000_1234)]
        event.images = [SampleEvents.mainImage, SampleEvents.systemImage]
        if case .hang(var hang) = event.payload {
            hang.hotStack = stack
            hang.stacks = [StackCount(frames: stack, count: 40)]
            event.payload = .hang(hang)
        }
        return event
    }
}
