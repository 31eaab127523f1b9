import Foundation
import Testing
import Vigil
import VigilCore
import VigilTestSupport

/// Keeps every event in memory.
private final class SpanSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [Event] = []
    func emit(_ event: Event) { lock.lock(); collected.append(event); lock.unlock() }
    var spans: [(event: Event, span: SpanPayload)] {
        lock.lock(); defer { lock.unlock() }
        return collected.compactMap { event in
            if case .span(let span) = event.payload { return (event, span) }
            return nil
        }
    }
}

private struct CheckoutFailed: Error, CustomStringConvertible {
    var description: String { "card declined" }
}

// In the wiring suite: it is serialized, and these tests start the process's one SDK too.
extension DeliveryWiringTests {
    @Test("spans from Vigil.spanRecorder and Vigil.measure become span events of the session, with its context")
    func spansBecomeEvents() throws {
        let sink = SpanSink()
        // Before start: dropped, not queued for later.
        Vigil.spanRecorder.record(SpanPayload(traceId: String(repeating: "1", count: 32), spanId: String(repeating: "2", count: 16),
                                              name: "before.start", start: Date(), end: Date()))
        var monitoring = VigilConfiguration()
        monitoring.enabledModules = []
        #expect(Vigil.start(VigilSetup(app: AppInfo(id: "dev.vigil.spans", version: "1", build: "1"), monitoring: monitoring,
                                       sink: sink, tags: ["flow": "checkout"], initialPage: "Cart")))
        let linkStart = Date(timeIntervalSince1970: 1_800_000_000)
        Vigil.spanRecorder.record(SpanPayload(traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331",
                                              name: "ble.connect", kind: .client, start: linkStart,
                                              end: linkStart.addingTimeInterval(0.25), status: .ok))
        let parent = try TraceParent.parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        let total = Vigil.measure("cart.total", parent: parent, attributes: ["items": .int(3)]) { () -> Int in
            Thread.sleep(forTimeInterval: 0.02)
            return 42
        }
        #expect(total == 42)
        #expect(throws: CheckoutFailed.self) {
            try Vigil.measure("checkout.submit") { throw CheckoutFailed() }
        }
        Vigil.stop()
        // After stop: dropped.
        Vigil.measure("after.stop") {}

        let spans = sink.spans
        #expect(spans.map(\.span.name) == ["ble.connect", "cart.total", "checkout.submit"])
        let link = try #require(spans.first)
        #expect(link.event.time == linkStart, "a span event is dated at the span's start")
        #expect(link.event.app.id == "dev.vigil.spans")
        #expect(link.event.tags["flow"] == "checkout")
        #expect(link.event.context.page == "Cart")

        let measured = spans[1].span
        #expect(measured.traceId == parent.traceId)
        #expect(measured.parentSpanId == parent.parentId)
        #expect(measured.status == .ok)
        #expect(measured.attributes["items"] == .int(3))
        #expect(measured.durationMs >= 15 && measured.durationMs < 5_000, "duration \(measured.durationMs) ms")
        #expect(TraceIdentifier.isValid(measured.spanId, hexDigits: 16))

        let failed = spans[2].span
        #expect(failed.status == .error)
        #expect(failed.statusMessage == "card declined")
        #expect(failed.parentSpanId == nil)
        #expect(TraceIdentifier.isValid(failed.traceId, hexDigits: 32))
    }

    @Test("AppInfo(bundle:) falls back to the process name and 0 without an Info.plist")
    func appInfoWithoutInfoPlist() throws {
        let directory = try TemporaryDirectory(prefix: "bundle")
        let bundle = try #require(Bundle(path: directory.url.path))
        let info = AppInfo(bundle: bundle)
        #expect(info.id == ProcessInfo.processInfo.processName)
        #expect(info.version == "0")
        #expect(info.build == "0")
    }
}
