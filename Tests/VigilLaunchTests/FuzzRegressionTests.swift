import Foundation
import Testing
import VigilCore
import VigilLaunch

/// Inputs the fuzz targets (Fuzz/, docs/fuzzing.md) found, pinned so the fixes stay.
@Suite("Inputs found by fuzzing (VigilLaunch)")
struct FuzzRegressionTests {
    private func span(_ name: String, _ attributes: [String: AttributeValue]) -> SpanPayload {
        let origin = Date(timeIntervalSince1970: 1_795_985_000)
        return SpanPayload(traceId: "0af7651916cd43dd8448eb211c80319c", spanId: TraceIdentifier.spanId(), name: name,
                           start: origin, end: origin.addingTimeInterval(0.005), attributes: attributes)
    }

    @Test("a launch.cores attribute outside 1…1024 is ignored, so the report simulates on its default cores",
          arguments: [Int64.max, 1025, 0, -4])
    func hostileCoreCountIsIgnored(cores: Int64) throws {
        let traces = LaunchTrace.traces(from: [
            span("launch", [LaunchSpanAttribute.cores: .int(cores)]),
            span("launch.task.a", [LaunchSpanAttribute.cores: .int(cores)]),
        ])
        let trace = try #require(traces.first)
        #expect(trace.cores == nil)
        let (plan, durations) = try trace.plan()
        let savings = LaunchSimulator.removalSavings(plan, durationsMs: durations, cores: trace.cores ?? 2)
        #expect(savings.count <= 1)
    }

    @Test("a launch.cores attribute within 1…1024 is kept, on the root span or a task span")
    func plausibleCoreCountIsKept() throws {
        #expect(LaunchTrace.traces(from: [span("launch", [LaunchSpanAttribute.cores: .int(1024)]),
                                          span("launch.task.a", [:])]).first?.cores == 1024)
        #expect(LaunchTrace.traces(from: [span("launch.task.a", [LaunchSpanAttribute.cores: .int(1)])]).first?.cores == 1)
    }
}
