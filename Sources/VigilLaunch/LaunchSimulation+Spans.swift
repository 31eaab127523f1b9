import Foundation
import VigilCore

extension LaunchSimulation {
    /// The task spans the runner would have recorded had it run `plan` as simulated, for a launch
    /// that started at `start`: one per task that returned or was skipped, in registration
    /// order, with the runner's attributes (``LaunchSpanAttribute``). Pool work is named
    /// `pool-N` like the runner's threads; a skipped task is placed where its last dependency
    /// ended. Tasks that never settled have no span.
    ///
    /// For generated data (demos, fixtures) that a real launch would have produced; span ids come
    /// from `generator`, so a seeded generator gives the same spans every time. Cost O(tasks).
    public func taskSpans<G: RandomNumberGenerator>(plan: LaunchPlan, traceId: String, rootSpanId: String, start: Date,
                                                    using generator: inout G) -> [SpanPayload] {
        precondition(plan.count == entries.count, "the simulation of another plan")
        var endOf: [String: Double] = [:]
        for entry in entries { if let end = entry.endMs { endOf[entry.id] = end } }
        var spans: [SpanPayload] = []
        for (index, entry) in entries.enumerated() {
            let spec = plan.specs[index]
            var begin = entry.startMs
            var finish = entry.endMs
            if case .skipped = entry.state {
                let at = spec.dependencies.compactMap { endOf[$0] }.max() ?? entry.readyMs ?? 0
                begin = at
                finish = at
            }
            guard let begin, let finish else { continue }
            var worker = entry.worker
            if let name = worker, name.hasPrefix("core"), let number = Int(name.dropFirst(4)) { worker = "pool-\(number)" }
            let ran = entry.startMs != nil
            let record = LaunchTaskRecord(id: entry.id, lane: entry.lane, phase: entry.phase, state: entry.state,
                                          readyMs: entry.readyMs, startMs: ran ? begin : nil, endMs: ran ? finish : nil,
                                          worker: ran ? worker : nil,
                                          ranOnMainThread: ran && worker != "async" ? worker == "main" : nil)
            spans.append(LaunchTaskSpan.make(spec: spec, record: record, cores: cores, traceId: traceId,
                                             spanId: TraceIdentifier.spanId(using: &generator), rootSpanId: rootSpanId,
                                             start: start.addingTimeInterval(begin / 1000),
                                             end: start.addingTimeInterval(finish / 1000)))
        }
        return spans
    }
}
