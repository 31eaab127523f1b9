import Foundation
import Testing
import VigilCore
import VigilLaunch

@Suite("Reading launches back from spans")
struct LaunchTraceTests {
    private let origin = Date(timeIntervalSince1970: 1_795_985_000)

    private func span(_ name: String, trace: String = "0af7651916cd43dd8448eb211c80319c", start: Double = 0, end: Double = 1,
                      _ attributes: [String: AttributeValue] = [:]) -> SpanPayload {
        SpanPayload(traceId: trace, spanId: TraceIdentifier.spanId(), name: name,
                    start: origin.addingTimeInterval(start / 1000), end: origin.addingTimeInterval(end / 1000),
                    attributes: attributes)
    }

    @Test("spans group by trace, non-launch spans are ignored, and the root span gives the cores")
    func grouping() {
        let traces = LaunchTrace.traces(from: [
            span("launch", trace: "aaaa", [LaunchSpanAttribute.cores: .int(4)]),
            span("launch.task.a", trace: "aaaa", start: 0, end: 5),
            span("ble.connect", trace: "aaaa"),
            span("launch.task.b", trace: "bbbb", start: 2, end: 3, [LaunchSpanAttribute.dependencies: "a,zz"]),
            span("launch.task.a", trace: "aaaa", start: 0, end: 5),
        ])
        #expect(traces.map(\.traceId) == ["aaaa", "bbbb"])
        #expect(traces[0].cores == 4)
        #expect(traces[0].tasks.map(\.id) == ["a"])
        #expect(abs(traces[0].tasks[0].runMs - 5) < 0.001)
        #expect(traces[1].absentDependencies == ["a", "zz"])
        #expect(traces[1].cores == nil)
    }

    @Test("hostile attribute values are clamped or ignored, never trapped on")
    func hostileAttributes() throws {
        let traces = LaunchTrace.traces(from: [
            span("launch.task.x", [LaunchSpanAttribute.startOffsetMs: .double(.infinity),
                                   LaunchSpanAttribute.runMs: .double(-5),
                                   LaunchSpanAttribute.readyOffsetMs: .double(1e308),
                                   LaunchSpanAttribute.priority: .int(.max),
                                   LaunchSpanAttribute.lane: "sideways",
                                   LaunchSpanAttribute.phase: .int(3)]),
            span("launch.task.y", start: -1e12, end: 1e12, [LaunchSpanAttribute.startOffsetMs: .double(1e300),
                                                              LaunchSpanAttribute.runMs: .double(1e300),
                                                              LaunchSpanAttribute.dependencies: "x,,x"]),
        ])
        let trace = try #require(traces.first)
        for task in trace.tasks {
            #expect(task.startMs.isFinite && task.endMs.isFinite && task.startMs >= 0 && task.endMs >= task.startMs)
        }
        let x = try #require(trace.tasks.first { $0.id == "x" })
        #expect(x.lane == .concurrent)
        #expect(x.phase == .beforeFirstFrame)
        let (plan, durations) = try trace.plan()
        let simulation = LaunchSimulator.simulate(plan, durationsMs: durations, cores: 2)
        #expect(simulation.entries.allSatisfy { $0.state.isSettled })
    }
}
