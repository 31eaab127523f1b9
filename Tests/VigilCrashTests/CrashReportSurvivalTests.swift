import Foundation
import Testing
import VigilCore
import VigilRuntime
import VigilTestSupport

@Suite("Crash reports under hostile conditions (real processes)")
struct CrashReportSurvivalTests {
    @Test("a process killed (SIGKILL) while its handler writes leaves a report the next launch discards as truncated; nothing is reported, then or later",
          arguments: ["crashedThread", "images", "finish"])
    func killedWhileWriting(section: String) throws {
        let scenario = try CrashScenario()
        // The handler stalls (after flushing what it has) inside the given section, and is
        // killed there with SIGKILL.
        let signal = try scenario.crashAndKillWhileWriting("segv", stallIn: section)
        #expect(signal == Signals.kill)
        let files = scenario.rawReports()
        try #require(files.count == 1)
        let size = (try? FileManager.default.attributesOfItem(atPath: files[0].path)[.size] as? Int) ?? 0
        #expect(size > 0, "part of the report was written before the kill")
        #expect(throws: RawCrashReportError.self) { try scenario.parsedRawReport() }

        let next = try scenario.recover()
        #expect(next.events.isEmpty, "a torn report is never reported")
        #expect(next.discarded == ["truncated": 1], "\(next.counters)")
        #expect(scenario.rawReports().isEmpty)
        let again = try scenario.recover()
        #expect(again.events.isEmpty && again.discarded.isEmpty)
    }

    @Test("a full disk at crash time loses the report but not the death signal")
    func fullDisk() throws {
        let scenario = try CrashScenario()
        // /dev/full answers every write with ENOSPC, as a full disk does.
        let died = try scenario.crash("segv", ["--report-file", "/dev/full"])
        #expect(died.signal == Signals.segv, "\(died)")
        #expect(died.seconds < 10)
        let next = try scenario.recover()
        #expect(next.events.isEmpty)
        #expect(next.recovered == 0)
    }

    @Test("a fault inside Vigil's own handler ends the first report early but validly, and the process dies with the first crash's signal",
          arguments: [("segv", "threads"), ("segv", "message"), ("abort", "message"), ("segv", "images")])
    func faultInsideHandler(kind: String, section: String) throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash(kind, ["--test-fault", section])
        let signal = kind == "segv" ? Signals.segv : Signals.abort
        #expect(died.signal == signal, "the first crash's signal, not the handler's own fault: \(died)")
        let report = try scenario.parsedRawReport()
        let fault = try #require(report.handlerFault)
        #expect(CrashHandler.Section(rawValue: fault.section)?.description == section)
        #expect(fault.signal == SIGSEGV)
        #expect(report.signal == signal, "the first crash wins")
        let next = try scenario.recover()
        try #require(next.crashes.count == 1)
        let (event, crash) = next.crashes[0]
        #expect(crash.threads.first?.frames.isEmpty == false)
        if section == "images" {
            // Cut before the images: the stack is there, but nothing to symbolicate it with.
            #expect(event.images?.isEmpty ?? true)
        } else {
            let functions = try CrashScenario.crashedThreadFunctions(event, crash)
            let expected = kind == "segv" ? "crashBySegmentationFault" : "crashByAbort"
            #expect(functions.contains { $0.contains { $0.contains(expected) } })
        }
    }

    @Test("two threads crashing at the same moment produce one report: the first wins, the process dies, nothing deadlocks")
    func concurrentCrashes() throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash("concurrent")
        #expect(died.signal == Signals.segv, "\(died)")
        #expect(died.seconds < 10)
        let report = try scenario.parsedRawReport()
        #expect(report.crashedThread?.name.hasPrefix("vigil-crasher-") == true)
        // The other crasher either crashed while the first report was written (then it is a
        // secondary crash) or had not crashed yet when the process died.
        for secondary in report.secondaryCrashes {
            #expect(secondary.signal == SIGSEGV)
            #expect(secondary.threadID != report.crashedThreadID)
        }
        let next = try scenario.recover()
        #expect(next.crashes.count == 1)
    }
}
