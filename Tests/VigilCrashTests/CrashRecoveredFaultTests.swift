import Foundation
import Testing
import VigilCore
import VigilRuntime
import VigilTestSupport

/// A SIGSEGV handler installed before Vigil that recovers from faults on a page it probes (as
/// language runtimes and garbage collectors do): Vigil's handler runs first for every probe, and
/// none of them may become a crash report, while a real crash after them must.
/// One run of `vigil-sample crash --kind recovered`: how the earlier handler recovers (leaving by
/// `siglongjmp`; fixing the page and returning; or, System V style, a plain SA_RESETHAND handler
/// that fixes the page, installs itself again and returns), where the
/// probes run (the main thread has an alternate signal stack, "vigil-prober" has none) and
/// where the real crash happens (another thread, or the probing thread itself).
struct RecoveredFaultCase: Sendable, CustomTestStringConvertible {
    var recovery: String
    var probeOn: String
    var crashOn: String

    var arguments: [String] { ["--recover", recovery, "--probe-on", probeOn, "--crash-on", crashOn] }
    var testDescription: String { "\(recovery), probes on \(probeOn), crash on \(crashOn)" }

    /// The real crash: its fault address, thread name and function.
    var address: UInt64 { crashOn == "same" && probeOn == "main" ? 0x10 : 0x20 }
    var threadName: String { crashOn == "other" ? "vigil-crasher" : probeOn == "main" ? "vigil-sample" : "vigil-prober" }
    var function: String { address == 0x10 ? "crashBySegmentationFault" : "crashBySegmentationFaultOnBackgroundThread" }

    /// Whether Vigil's crash signal handler is the first to see a fault (Linux).
    static var signalHandlerSeesFaultsFirst: Bool {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }

    static let all: [RecoveredFaultCase] = ["longjmp", "fix", "rearm"].flatMap { recovery in
        ["main", "thread"].flatMap { probeOn in
            ["other", "same"].map { RecoveredFaultCase(recovery: recovery, probeOn: probeOn, crashOn: $0) }
        }
    }
}

@Suite("Faults an earlier handler recovers from are not crashes (real processes)",
       .enabled(if: RecoveredFaultCase.signalHandlerSeesFaultsFirst,
                "on Darwin the Mach exception port sees a fault before any signal handler; its handler does not tell recovered faults yet (docs/crash.md)"))
struct CrashRecoveredFaultTests {
    /// What `vigil-sample crash --kind recovered` printed.
    struct Printed {
        var probePage: UInt64
        var probesRecovered: Int
        var crashAt: UInt64?

        init(_ output: String) throws {
            var page: UInt64?
            var recovered: Int?
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count == 2 else { continue }
                switch words[0] {
                case "probe-page": page = UInt64(words[1], radix: 16)
                case "probes-recovered": recovered = Int(words[1])
                case "crash-at": crashAt = UInt64(words[1])
                default: break
                }
            }
            probePage = try #require(page, "no probe-page line in: \(output)")
            probesRecovered = try #require(recovered, "no probes-recovered line in: \(output)")
        }
    }

    @Test("three recovered probes leave no report; the real crash after them is the one report, written at once, and the next launch reports exactly that crash",
          arguments: RecoveredFaultCase.all)
    func probesThenRealCrash(_ run: RecoveredFaultCase) throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash("recovered", run.arguments + ["--probes", "3", "--announce", "--threads", "1"])
        #expect(died.signal == Signals.segv, "\(died)")
        let printed = try Printed(died.standardOutput)
        #expect(printed.probesRecovered == 3, "the earlier handler recovered every probe: \(died)")
        let crashAt = try #require(printed.crashAt, "\(died)")

        // One report, of the real crash: its signal, address and thread; nothing of the probes.
        #expect(scenario.rawReports().count == 1, "\(scenario.rawReports())")
        let report = try scenario.parsedRawReport()
        #expect(report.signal == Signals.segv)
        #expect(report.faultAddress == run.address, "the real crash's address, not the probe page \(String(printed.probePage, radix: 16))")
        #expect(report.crashedThread?.name == run.threadName)
        #expect(report.secondaryCrashes.isEmpty && report.handlerFault == nil)

        // Written promptly: the report's end is stamped on the clock the sample announced the
        // fault with (both CLOCK_MONOTONIC, in the crashing process); and the process died
        // promptly too, as this process saw it (an upper bound, so generous for a loaded machine;
        // a handler that waited for an earlier fault's fate would take 10 s).
        let timing = try #require(report.timing)
        #expect(timing.end >= crashAt && timing.end - crashAt < 1_000_000_000,
                "report finished \(Double(Int64(timing.end) - Int64(crashAt)) / 1e6) ms after the fault")
        #expect(died.endedAtMonotonicNs > crashAt && died.endedAtMonotonicNs - crashAt < 5_000_000_000,
                "death seen \(Double(Int64(died.endedAtMonotonicNs) - Int64(crashAt)) / 1e6) ms after the fault")

        let next = try scenario.recover()
        try #require(next.crashes.count == 1, "events: \(next.events.map(\.type)); \(next.outcome.standardOutput)")
        #expect(next.events.count == 1)
        let (event, crash) = next.crashes[0]
        #expect(crash.signal == SignalDescription.name(ofSignal: Signals.segv))
        #expect(crash.faultAddress == Address(run.address))
        #expect(crash.threads.first?.name == run.threadName)
        let functions = try CrashScenario.crashedThreadFunctions(event, crash)
        #expect(functions.contains { $0.contains { $0.contains(run.function) } },
                "crashed thread: \(functions.map { $0.first ?? "?" })")
        #expect(scenario.rawReports().isEmpty)
        #expect(try scenario.recover().events.isEmpty, "no crash is reported twice")
    }

    @Test("recovered probes and a normal exit: the next launch finds a clean run and no crash",
          arguments: RecoveredFaultCase.all.filter { $0.crashOn == "other" })
    func probesOnly(_ run: RecoveredFaultCase) throws {
        let scenario = try CrashScenario()
        let ran = try scenario.crash("recovered", run.arguments + ["--probes", "3", "--probes-only"])
        #expect(ran.exitStatus == 0, "\(ran)")
        #expect(try Printed(ran.standardOutput).probesRecovered == 3)
        // A fault handled by returning is retracted at once; one left by a long jump when the
        // next fault sees the thread back in its own code, so the last one is still pending
        // here (unless the once-a-second check came first) and goes at exit.
        let line = ran.standardOutput.split(separator: "\n").first { $0.hasPrefix("vigil-recovered-faults ") }
        let retracted = line.flatMap { Int($0.split(separator: " ")[1]) }
        #expect(run.recovery == "longjmp" ? (2...3).contains(retracted ?? -1) : retracted == 3, "\(ran)")
        let next = try scenario.recover()
        #expect(next.events.isEmpty, "events: \(next.events.map(\.type)); \(next.outcome.standardOutput)")
        #expect(next.counters["cleanRuns"] as? Int == 1, "\(next.counters)")
        #expect(next.discarded.isEmpty, "\(next.discarded)")
    }

    @Test("the earlier handler crashing while it handles the real fault (abort): the report of that fault stands, and the process dies of the abort as it would without Vigil",
          arguments: [RecoveredFaultCase(recovery: "longjmp", probeOn: "main", crashOn: "same"),
                      RecoveredFaultCase(recovery: "longjmp", probeOn: "thread", crashOn: "same"),
                      RecoveredFaultCase(recovery: "fix", probeOn: "main", crashOn: "other")])
    func crashInsideEarlierHandler(_ run: RecoveredFaultCase) throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash("recovered", run.arguments + ["--probes", "3", "--decline", "abort"])
        #expect(died.signal == Signals.abort, "\(died)")
        #expect(try Printed(died.standardOutput).probesRecovered == 3)
        #expect(scenario.rawReports().count == 1)
        let report = try scenario.parsedRawReport()
        #expect(report.signal == Signals.segv && report.faultAddress == run.address, "the real fault, not the abort nor a probe")
        #expect(report.crashedThread?.name == run.threadName)
        let next = try scenario.recover()
        #expect(next.crashes.count == 1 && next.events.count == 1, "\(next.events.map(\.type))")
    }

    @Test("a fault recovered by a long jump is retracted by the once-a-second check while the process lives on",
          arguments: ["main", "thread"])
    func longJumpNoticedByPeriodicCheck(probeOn: String) throws {
        let scenario = try CrashScenario()
        let ran = try scenario.crash("recovered", ["--recover", "longjmp", "--probe-on", probeOn, "--probes", "3",
                                                   "--probes-only", "--linger-ms", "3000"])
        #expect(ran.exitStatus == 0, "\(ran)")
        #expect(ran.standardOutput.contains("vigil-recovered-faults 3\n"), "all three retracted before exit: \(ran)")
        #expect(try scenario.recover().events.isEmpty)
    }
}
