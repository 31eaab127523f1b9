import Foundation
import Testing
import VigilCore
import VigilRuntime
import VigilTestSupport

/// One `vigil-sample crash` kind and what its crash must look like.
struct CrashKindExpectation: Sendable, CustomTestStringConvertible {
    var kind: String
    var signal: Int32
    /// The function that crashed, as its (mangled) symbol contains it.
    var function: String
    /// Text the Swift runtime's message must contain (nil: no message expected).
    var message: String?
    /// Where the sample was built with -O the runtime has no message for this kind: the trap's
    /// reason is then only in the debug info, as this inlined pseudo-frame of the crashing frame.
    var optimizedReason: String?
    /// The crashed thread's name, when the kind names it.
    var threadName: String?

    var testDescription: String { kind }

    static let all: [CrashKindExpectation] = [
        CrashKindExpectation(kind: "segv", signal: Signals.segv, function: "crashBySegmentationFault"),
        CrashKindExpectation(kind: "abort", signal: Signals.abort, function: "crashByAbort"),
        CrashKindExpectation(kind: "swift-fatal", signal: Signals.trap, function: "crashBySwiftFatalError",
                             message: "Fatal error: vigil-sample deliberate fatal error for crash capture"),
        CrashKindExpectation(kind: "index", signal: Signals.trap, function: "crashByIndexOutOfRange",
                             message: "Fatal error: Index out of range",
                             optimizedReason: "Swift runtime failure: Index out of range"),
        CrashKindExpectation(kind: "overflow", signal: Signals.trap, function: "crashByIntegerOverflow"),
        CrashKindExpectation(kind: "stack", signal: Signals.segv, function: "crashByStackOverflow"),
        CrashKindExpectation(kind: "background", signal: Signals.segv, function: "crashBySegmentationFaultOnBackgroundThread",
                             threadName: "vigil-crasher"),
        CrashKindExpectation(kind: "double", signal: Signals.abort, function: "crashInsideAppSignalHandler"),
    ]
}

@Suite("Crash capture end to end (real crashing processes)")
struct CrashEndToEndTests {
    @Test("each kind dies with its own signal, and the next launch reports exactly one crash whose crashed thread, symbolicated, names the crashing function",
          arguments: CrashKindExpectation.all)
    func kind(_ expected: CrashKindExpectation) throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash(expected.kind, ["--threads", "2"])
        #expect(died.signal == expected.signal, "\(died)")
        #expect(died.seconds < 10, "the handler must not hang the dying process")

        let next = try scenario.recover()
        #expect(next.outcome.exitStatus == 0, "\(next.outcome)")
        try #require(next.crashes.count == 1, "events: \(next.events.map(\.type)); \(next.outcome.standardOutput)")
        #expect(next.events.count == 1)
        let (event, crash) = next.crashes[0]
        #expect(crash.signal == SignalDescription.name(ofSignal: expected.signal))
        #expect(event.images?.contains { $0.name == "vigil-sample" && !$0.id.isEmpty } == true, "the app's image with its build id")
        #expect(crash.threads.filter(\.crashed).count == 1)
        #expect(crash.threads.first?.crashed == true, "the crashed thread comes first")
        #expect(crash.threads.count >= 3, "the idle threads are captured too")
        #expect(crash.registers?.isEmpty == false)

        let functions = try CrashScenario.crashedThreadFunctions(event, crash)
        #expect(functions.contains { $0.contains { $0.contains(expected.function) } },
                "crashed thread: \(functions.map { $0.first ?? "?" })")
        if let message = expected.message {
            if let reason = expected.optimizedReason, crash.exception == nil {
                // A sample built with -O: a bare trap, its reason in the debug info.
                #expect(functions.first?.contains(reason) == true, "no runtime message and no \(reason) frame: \(functions.first ?? [])")
            } else {
                #expect(crash.exception?.reason?.contains(message) == true, "exception: \(String(describing: crash.exception))")
                #expect(crash.exception?.type == "Swift runtime failure")
            }
        }
        if let name = expected.threadName {
            #expect(crash.threads.first?.name == name)
        }
        if expected.kind == "segv" {
            #expect(crash.code == "SEGV_MAPERR")
            #expect(crash.faultAddress == Address(0x10))
        }
        #expect(scenario.rawReports().isEmpty, "the raw report is deleted once its event is stored")

        // The launch after that has nothing left to report.
        let again = try scenario.recover()
        #expect(again.events.isEmpty, "no crash is reported twice")
    }

    @Test("idle threads are parked and walked: their stacks reach the sample's thread body, with their names")
    func otherThreads() throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash("segv", ["--threads", "3"])
        #expect(died.signal == Signals.segv, "\(died)")
        let report = try scenario.parsedRawReport()
        let idle = report.threads.filter { $0.name.hasPrefix("vigil-idle-") }
        #expect(idle.count == 3, "threads: \(report.threads.map(\.name))")
        // Parked within the handler's 20 ms budget, or (on a loaded machine) read from /proc.
        #expect(idle.allSatisfy { ($0.source == .parked || $0.source == .proc) && $0.frames.count >= 3 },
                "\(idle.map { "\($0.name) \($0.source) \($0.frames.count) frames, flags \(String($0.walkFlags, radix: 16))" })")
        #expect(idle.contains { $0.source == .parked })
        // Dispatch's worker threads block every asynchronous signal: a worker blocked in the
        // kernel is read from /proc, one that is running at that instant has no registers.
        for thread in report.threads where thread.source == .proc {
            #expect(thread.frames.count >= 2, "a /proc thread's stack is walked from its stack pointer")
        }
        let timing = try #require(report.timing)
        #expect(timing.end >= timing.entry)
    }

    @Test("the crash report names the function even when the Swift runtime's own backtracer runs after Vigil's handler")
    func chainsToSwiftBacktracer() throws {
        let scenario = try CrashScenario()
        let died = try scenario.crash("segv", [], environment: ["SWIFT_BACKTRACE": "enable=yes,interactive=no"], timeout: 60)
        #expect(died.signal == Signals.segv, "\(died)")
        #expect(died.standardError.contains("Program crashed"), "the Swift backtracer ran: \(died.standardError.prefix(400))")
        let next = try scenario.recover()
        try #require(next.crashes.count == 1)
        let functions = try CrashScenario.crashedThreadFunctions(next.crashes[0].event, next.crashes[0].payload)
        #expect(functions.contains { $0.contains { $0.contains("crashBySegmentationFault") } })
    }
}

@Suite("Images loaded after start (real processes)")
struct CrashLateImageTests {
    static let library = ["/usr/lib/x86_64-linux-gnu/libsqlite3.so.0", "/usr/lib/aarch64-linux-gnu/libsqlite3.so.0",
                          "/lib/x86_64-linux-gnu/libsqlite3.so.0"].first { FileManager.default.fileExists(atPath: $0) }

    @Test("a library loaded after start is in the report: by name and extent at crash time, with its build id once the snapshot is refreshed",
          arguments: [false, true])
    func lateLibrary(refreshed: Bool) throws {
        // SQLite is a build dependency of the package, so its shared library is always here.
        let library = try #require(Self.library, "libsqlite3.so.0 is missing: run scripts/bootstrap (package libsqlite3-dev)")
        let scenario = try CrashScenario()
        let died = try scenario.crash("segv", ["--dlopen", library] + (refreshed ? ["--refresh-images"] : []))
        #expect(died.signal == Signals.segv, "\(died)")
        let report = try scenario.parsedRawReport()
        let name = "libsqlite3.so.0"
        if refreshed {
            let image = try #require(report.images.first { $0.path.hasSuffix(name) })
            #expect(!image.buildID.isEmpty)
            #expect(!report.lateImages.contains { $0.path.hasSuffix(name) })
        } else {
            let late = try #require(report.lateImages.first { $0.path.hasSuffix(name) }, "late: \(report.lateImages)")
            #expect(late.size > 0 && late.loadAddress == late.bias)
            #expect(!report.images.contains { $0.path.hasSuffix(name) })
        }
    }
}
