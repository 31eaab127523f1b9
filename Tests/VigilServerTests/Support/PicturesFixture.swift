import Foundation
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// Events the dashboard's pictures are drawn from, happening now: hangs with sampled stacks on
/// two pages and two releases, frozen frames with stacks, launches with task spans, requests;
/// symbols for the app's image, everything processed.
enum PicturesFixture {
    /// Hang events per (release, page): 1.0.0 has 4 on Checkout and 2 on Home, 2.0.0 has 3 on Checkout.
    static let hangs: [(version: String, page: String, count: Int)] = [("1.0.0", "Checkout", 4), ("1.0.0", "Home", 2), ("2.0.0", "Checkout", 3)]
    /// Samples per hang event: 40 on the deep stack, 10 on the shallow one.
    static let samplesPerHang: Int64 = 50
    /// Launch TTIDs of the launches that carry task spans; the median is 900.
    static let taskLaunchTTIDs: [Double] = [700, 900, 1500]

    /// Fills `server` (its symbolication must be ``TableSymbolication``) and processes everything.
    static func populate(_ server: TestServer) throws {
        try server.store.storeSymbols(projectID: server.project.id, try TableSymbolication.slices([TableSymbolication.sampleUpload()]))
        let now = Date()
        var events: [Event] = []
        var index = 0
        func stamp(_ event: inout Event, version: String, page: String) {
            index += 1
            event.id = UUID()
            event.time = now.addingTimeInterval(-Double(index) * 60)
            event.app.version = version
            event.context.page = page
        }
        for (version, page, count) in hangs {
            for _ in 0..<count {
                var event = ProcessingTestsFixture.hang(index: index)
                if case .hang(var hang) = event.payload {
                    let stack = hang.stacks[0].frames
                    hang.stacks = [StackCount(frames: stack, count: 40), StackCount(frames: Array(stack.dropFirst()), count: 10)]
                    hang.durationMs = 300 + Double(index * 100)
                    event.payload = .hang(hang)
                }
                stamp(&event, version: version, page: page)
                events.append(event)
            }
        }
        for number in 0..<3 {
            var event = SampleEvents.make(.frames, index: number)
            let base = SampleEvents.mainImage.loadAddress.value
            if case .frames(var frames) = event.payload {
                frames.frozen = 1
                frames.durationMs = 800 + Double(number * 100)
                frames.stack = [Address(base + 0x0f10), Address(0x1_e000_1234)]
                event.payload = .frames(frames)
            }
            event.images = [SampleEvents.mainImage, SampleEvents.systemImage]
            stamp(&event, version: "1.0.0", page: "Checkout")
            events.append(event)
        }
        for (number, ttid) in taskLaunchTTIDs.enumerated() {
            var event = SampleEvents.make(.launch, index: number)
            if case .launch(var launch) = event.payload {
                launch.ttidMs = ttid
                launch.tasks = tasks(scale: ttid / 900)
                event.payload = .launch(launch)
            }
            stamp(&event, version: "1.0.0", page: "Home")
            events.append(event)
        }
        for number in 0..<2 {
            var event = SampleEvents.make(.launch, index: number + 10)
            stamp(&event, version: "2.0.0", page: "Home")
            events.append(event)
        }
        for number in 0..<12 {
            var event = SampleEvents.make(.network, index: number * 37)
            stamp(&event, version: number % 2 == 0 ? "1.0.0" : "2.0.0", page: "Checkout")
            events.append(event)
        }
        let answer = try server.postEvents(events)
        guard answer.status == 200, (answer.json["rejected"] as? [Any])?.isEmpty == true else {
            throw TestSupportError("fixture events were refused: \(answer)")
        }
        try EventProcessor(store: server.store, symbols: SymbolTableCache(engine: TableSymbolication())).drain()
    }

    /// A launch's task spans: config → (db on a serial lane after open) → root-view on main;
    /// `scale` stretches the durations so the launches differ.
    static func tasks(scale: Double) -> [SpanPayload] {
        let origin = Date()
        func span(_ id: String, start: Double, run: Double, _ attributes: [String: AttributeValue]) -> SpanPayload {
            var all = attributes
            all["launch.task.id"] = .string(id)
            all["launch.task.start_offset_ms"] = .double(start * scale)
            all["launch.task.run_ms"] = .double(run * scale)
            return SpanPayload(traceId: "trace", spanId: id, parentSpanId: "root", name: "launch.task.\(id)",
                               start: origin.addingTimeInterval(start * scale / 1000),
                               end: origin.addingTimeInterval((start + run) * scale / 1000), status: .ok, attributes: all)
        }
        return [
            span("config", start: 0, run: 10, ["launch.task.worker": "pool-1"]),
            span("db-open", start: 10, run: 20, ["launch.task.worker": "pool-2", "launch.task.lane": "serial:storage",
                                                 "launch.task.dependencies": "config"]),
            span("db-migrate", start: 30, run: 15, ["launch.task.worker": "pool-2", "launch.task.lane": "serial:storage"]),
            span("theme", start: 10, run: 6, ["launch.task.worker": "main", "launch.task.lane": "main", "launch.task.dependencies": "config"]),
            span("root-view", start: 45, run: 12, ["launch.task.worker": "main", "launch.task.lane": "main",
                                                   "launch.task.dependencies": "theme,db-migrate"]),
            span("analytics", start: 57, run: 9, ["launch.task.worker": "pool-1", "launch.task.phase": "afterFirstFrame",
                                                  "launch.task.dependencies": "config"]),
        ]
    }

    /// The critical path of ``tasks(scale:)``.
    static let criticalPath = ["config", "db-open", "db-migrate", "root-view"]
}
