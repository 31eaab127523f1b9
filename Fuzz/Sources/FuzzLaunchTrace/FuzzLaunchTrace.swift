import CFuzzDriver
import Foundation
import FuzzSupport
import VigilCore
import VigilLaunch

/// Reads the input as `vigil launch report` reads an events file (one event, a JSON array or
/// JSON lines; the spans of `span` events and of `launch` events' `tasks`), rebuilds every
/// launch trace and analyses it as the report does: never a trap, a hang or an unbounded
/// allocation (a trace claims 1…1,024 cores at most); task ids are unique within a trace, times
/// are finite and within two days, absent dependencies are really absent, and the plan, analysis
/// and savings hold one value per task.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLaunchTrace(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    var events: [Event] = []
    if let single = try? EventJSON.decode(body) {
        events = [single]
    } else if let results = try? EventJSON.decodeBatch(body) {
        events = results.compactMap { try? $0.get() }
    }
    for trace in LaunchTrace.traces(from: LaunchTrace.spans(in: events)) {
        // The simulator allocates per core: a trace may claim only as many as `--cores` accepts.
        fuzzCheck(trace.cores.map { (1...1024).contains($0) } ?? true, "trace \(trace.traceId) claims \(trace.cores ?? 0) cores")
        let ids = trace.tasks.map(\.id)
        fuzzCheck(Set(ids).count == ids.count, "trace \(trace.traceId) repeats a task id")
        fuzzCheck(Set(trace.absentDependencies).isDisjoint(with: ids), "an absent dependency is present")
        for task in trace.tasks {
            for value in [task.startMs, task.endMs, task.runMs] + (task.readyMs.map { [$0] } ?? []) {
                fuzzCheck(value.isFinite && value >= 0 && value <= 2 * 86_400_000, "\(task.id): time \(value) ms")
            }
        }
        let first = trace.firstFrameMs
        fuzzCheck(first.isFinite && first >= 0, "first frame at \(first) ms")
        // The report refuses larger traces before planning them.
        guard trace.tasks.count <= LaunchGraphFile.maxTasks, let (plan, durations) = try? trace.plan() else { continue }
        fuzzCheck(plan.count == trace.tasks.count && durations.count == plan.count, "plan of \(plan.count) for \(trace.tasks.count) tasks")
        let cores = trace.cores ?? 2
        let beforeFirstFrame = plan.specs.map { $0.phase == .beforeFirstFrame }
        let analysis = LaunchAnalysis(plan: plan, durationsMs: durations, cores: cores, including: beforeFirstFrame)
        fuzzCheck(analysis.lowerBoundMs.isFinite && analysis.lowerBoundMs >= 0, "lower bound \(analysis.lowerBoundMs)")
        let savings = LaunchSimulator.removalSavings(plan, durationsMs: durations, cores: cores, limit: 10)
        fuzzCheck(savings.count <= plan.count, "\(savings.count) savings for \(plan.count) tasks")
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzLaunchTrace_main")
public func fuzzLaunchTraceMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzLaunchTrace(data, size)
    }
}
