import CFuzzDriver
import Foundation
import FuzzSupport
import VigilLaunch

/// Reads the input as a launch graph file, as `vigil launch simulate` does, and simulates it
/// when it plans: never a trap or a hang; a parsed file respects its limits and writes back
/// (`encoded()`) to a file that parses to the same value; the simulation is deterministic, its
/// times are finite and ordered, and without timeouts or failures its first frame is never
/// earlier than the analysis's lower bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLaunchGraphFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let file: LaunchGraphFile
    do { file = try LaunchGraphFile.parse(Data(bytes: data, count: size)) } catch {
        fuzzCheck(!error.path.isEmpty && !error.message.isEmpty, "an error without a place or a reason: \(error)")
        return 0
    }
    fuzzCheck(file.tasks.count <= LaunchGraphFile.maxTasks, "\(file.tasks.count) tasks accepted")
    fuzzCheck(file.cores.map { (1...1024).contains($0) } ?? true, "cores \(String(describing: file.cores)) accepted")
    for task in file.tasks {
        fuzzCheck(task.durationMs.isFinite && task.durationMs >= 0 && task.durationMs <= LaunchGraphFile.maxMilliseconds,
                  "duration \(task.durationMs) accepted")
    }
    let written = file.encoded()
    do {
        let again = try LaunchGraphFile.parse(written)
        fuzzCheck(again == file, "encoded() changed " + (firstDifference(file, again) ?? "the file (no leaf differs)")
                  + "\n" + String(decoding: written, as: UTF8.self))
    } catch {
        fatalError("encoded() wrote a file parse refuses: \(error)\n\(String(decoding: written, as: UTF8.self))")
    }

    guard let plan = try? file.plan() else { return 0 }
    let cores = file.cores ?? 2
    let simulation = LaunchSimulator.simulate(plan, durationsMs: file.durationsMs, cores: cores, failing: file.failing)
    fuzzCheck(simulation == LaunchSimulator.simulate(plan, durationsMs: file.durationsMs, cores: cores, failing: file.failing),
              "the simulation is not deterministic")
    fuzzCheck(simulation.entries.count == plan.count, "\(simulation.entries.count) entries for \(plan.count) tasks")
    fuzzCheck(simulation.firstFrameMs.isFinite && simulation.firstFrameMs >= 0
                && simulation.firstFrameMs <= simulation.completionMs, "first frame \(simulation.firstFrameMs), completion \(simulation.completionMs)")
    for entry in simulation.entries {
        if let start = entry.startMs, let end = entry.endMs {
            fuzzCheck(start.isFinite && end.isFinite && start >= 0 && start <= end, "\(entry.id) runs \(start)…\(end)")
        }
        if let ready = entry.readyMs, let start = entry.startMs {
            fuzzCheck(ready <= start, "\(entry.id) starts at \(start) before it is ready at \(ready)")
        }
    }
    let simple = file.failing.isEmpty && file.tasks.allSatisfy { task in task.spec.timeoutMs.map { $0 >= task.durationMs } ?? true }
    let bound = simulation.analysis.lowerBoundMs
    if simple {
        fuzzCheck(simulation.firstFrameMs >= bound - 1e-6 * max(1, bound),
                  "first frame at \(simulation.firstFrameMs) ms beats the lower bound \(bound) ms")
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `<Target>_main`): runs libFuzzer's driver.
@_cdecl("FuzzLaunchGraphFile_main")
public func fuzzLaunchGraphFileMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        guard let data else { return 0 }
        return fuzzLaunchGraphFile(data, size)
    }
}
