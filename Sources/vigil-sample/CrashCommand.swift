import Foundation
import Vigil
import VigilCommandLine
import VigilCore
import VigilRuntime
import CVigilSampleProbe
#if canImport(Glibc)
import Glibc
#endif

/// `vigil-sample crash --kind K`: starts Vigil, then crashes inside the kind's function (see
/// CrashKinds.swift), so that the next `vigil-sample report --data-dir DIR (--out FILE | --server URL --key KEY)` recovers
/// the report as a `crash` event.
enum CrashCommand: Command {
    static let name = "crash"
    static let summary = "start Vigil and crash (segv, abort, swift-fatal, index, overflow, stack, background, double, recovered)"
    static let usage = """
        usage: vigil-sample crash --kind K --data-dir DIR [options]

          --kind K             segv         write through a null pointer (crashBySegmentationFault)
                               abort        abort() (crashByAbort)
                               swift-fatal  fatalError with a message (crashBySwiftFatalError)
                               index        array index out of range (crashByIndexOutOfRange)
                               overflow     integer overflow trap (crashByIntegerOverflow)
                               stack        unbounded recursion (crashByStackOverflow)
                               background   segv on the thread "vigil-crasher"
                                            (crashBySegmentationFaultOnBackgroundThread)
                               double       the app's own SIGSEGV handler, installed after Vigil,
                                            aborts inside itself (crashInsideAppSignalHandler)
                               concurrent   two threads segv at the same moment
                               recovered    a SIGSEGV handler installed before Vigil recovers
                                            from --probes reads of an inaccessible page (as
                                            runtimes and garbage collectors probe memory), then
                                            the thread "vigil-crasher" segfaults
                                            (crashBySegmentationFaultOnBackgroundThread)
          --probes N           recovered: how many probes (default 3); prints "probe-page <hex>"
                               and "probes-recovered <n>"
          --recover R          recovered: longjmp (the handler siglongjmps out, default), fix
                               (it makes the page readable and returns) or rearm (a plain
                               SA_RESETHAND handler that fixes the page, installs itself again
                               and returns)
          --probe-on P         recovered: probe on the main thread (main, default; it has an
                               alternate signal stack) or on the thread "vigil-prober" (thread;
                               it has none, and sleeps after probing)
          --crash-on C         recovered: the real crash on the thread "vigil-crasher" (other,
                               default) or on the probing thread (same: crashBySegmentationFault
                               on main, crashBySegmentationFaultOnBackgroundThread on the prober)
          --decline D          recovered: what the earlier handler does with the real crash:
                               default (restores the default action and returns, default) or
                               abort (calls abort(): a crash inside that handler, SIGABRT)
          --probes-only        recovered: exit 0 after the probes instead of crashing
          --linger-ms MS       recovered, with --probes-only: wait MS before exiting (Vigil's
                               once-a-second check then notices a fault recovered by a long jump)
          --threads N          start N idle threads first (their stacks are captured too)
          --app-handler M      also install an app handler for the crash signal: before (installed
                               before Vigil: runs after it) or after (installed after Vigil: runs
                               first and chains to it); each appends a line to --marker FILE
          --marker FILE        where the app handler writes
          --depth N            recurse N frames (descendThenCrash) before crashing
          --announce           print "crash-at <CLOCK_MONOTONIC ns>" right before crashing
          --no-vigil           do not start Vigil (the benchmark's baseline)
          --dlopen LIB         load the shared library LIB after Vigil started (a late image)
          --refresh-images     then tell Vigil at once (Vigil.imagesDidChange) instead of waiting
                               for its periodic check
          --report-file PATH   tests: the raw report goes to PATH (e.g. /dev/full: a full disk)
          --test-fault S       tests: fault inside Vigil's handler at report section S
          --test-stall S       tests: stall inside Vigil's handler at report section S
          --test-stall-ms MS   tests: how long the stall lasts (default 30000)

        common options (the raw report goes to DATA-DIR/crashes; with --server, the next
        `vigil-sample report --data-dir DIR --server URL --key KEY` uploads it):
        \(SampleHarness.commonUsage)
        """

    enum Kind: String, CaseIterable {
        case segv, abort, swiftFatal = "swift-fatal", index, overflow, stack, background, double, concurrent, recovered

        /// The signal the process dies with on this machine.
        var signal: Int32 {
            switch self {
            case .segv, .stack, .background, .concurrent, .recovered: return SIGSEGV
            case .abort, .double: return SIGABRT
            case .swiftFatal, .index, .overflow:
                #if arch(x86_64)
                return SIGILL
                #else
                return SIGTRAP
                #endif
            }
        }
    }

    static func run(_ words: [String]) throws -> Int32 {
        let valued: Set<String> = SampleHarness.commonValued.union([
            "kind", "threads", "app-handler", "marker", "depth", "report-file", "test-fault", "test-stall", "test-stall-ms",
            "dlopen", "probes", "recover", "probe-on", "crash-on", "linger-ms", "decline",
        ])
        let flags: Set<String> = ["announce", "no-vigil", "refresh-images", "probes-only"]
        let arguments = try Arguments(words, valued: valued)
        let unknown = arguments.unknown(allowedFlags: flags, allowedValues: valued)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
        guard arguments.positional.isEmpty else { throw UsageError("unexpected argument \(arguments.positional[0])") }
        let kindName = try arguments.required("kind")
        guard let kind = Kind(rawValue: kindName) else {
            throw UsageError("--kind: one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let threads: Int = try arguments.number("threads", default: 0)
        let depth: Int = try arguments.number("depth", default: 0)
        guard (0...256).contains(threads), (0...10_000).contains(depth) else { throw UsageError("--threads 0…256, --depth 0…10000") }
        var appHandler: CrashAppSignalHandler.Mode?
        if let mode = arguments.value("app-handler") {
            guard let parsed = CrashAppSignalHandler.Mode(rawValue: mode), parsed != .crashing else {
                throw UsageError("--app-handler: before or after")
            }
            appHandler = parsed
        }
        let sections = CrashHandler.Section.allCases.map(\.description)
        for option in ["test-fault", "test-stall"] {
            if let section = arguments.value(option), !sections.contains(section) {
                throw UsageError("--\(option): one of \(sections.joined(separator: ", "))")
            }
        }

        let probes: Int = try arguments.number("probes", default: 3)
        guard (0...1000).contains(probes) else { throw UsageError("--probes 0…1000") }
        let recovery: vigil_sample_probe_recovery
        switch arguments.value("recover") ?? "longjmp" {
        case "longjmp": recovery = VIGIL_SAMPLE_PROBE_LONGJMP
        case "fix": recovery = VIGIL_SAMPLE_PROBE_FIX
        case "rearm": recovery = VIGIL_SAMPLE_PROBE_REARM
        default: throw UsageError("--recover: longjmp, fix or rearm")
        }

        let harness = try SampleHarness(arguments: arguments)
        if kind == .recovered {
            // Before Vigil, as a runtime's handler is: Vigil's handler then runs first.
            let status = vigil_sample_probe_install(recovery)
            guard status == 0 else { throw UsageError("cannot install the probe handler (errno \(status))") }
            switch arguments.value("decline") ?? "default" {
            case "default": break
            case "abort": vigil_sample_probe_set_abort_on_decline(1)
            default: throw UsageError("--decline: default or abort")
            }
        }
        if appHandler == .before {
            CrashAppSignalHandler.install(signal: kind.signal, mode: .before, markerPath: arguments.value("marker"))
        }
        if !arguments.flag("no-vigil") {
            var setup = try harness.setup(monitoring: VigilConfiguration())
            if let path = arguments.value("report-file") { setup.crash.reportFileOverride = URL(fileURLWithPath: path) }
            setup.crash.testFaultSection = arguments.value("test-fault")
            setup.crash.testStallSection = arguments.value("test-stall")
            setup.crash.testStallMs = try arguments.number("test-stall-ms", default: 30_000)
            guard Vigil.start(setup) else { throw UsageError("Vigil could not start") }
        }
        if appHandler == .after {
            CrashAppSignalHandler.install(signal: kind.signal, mode: .after, markerPath: arguments.value("marker"))
        }
        if kind == .double {
            CrashAppSignalHandler.install(signal: SIGSEGV, mode: .crashing, markerPath: arguments.value("marker"))
        }
        if let library = arguments.value("dlopen") {
            guard dlopen(library, RTLD_NOW) != nil else { throw UsageError("--dlopen: cannot load \(library)") }
            if arguments.flag("refresh-images") { Vigil.imagesDidChange() }
        }
        startIdleThreads(threads)
        let announce = arguments.flag("announce")
        if kind == .recovered {
            let onThread: Bool
            switch arguments.value("probe-on") ?? "main" {
            case "main": onThread = false
            case "thread": onThread = true
            default: throw UsageError("--probe-on: main or thread")
            }
            let sameThread: Bool
            switch arguments.value("crash-on") ?? "other" {
            case "other": sameThread = false
            case "same": sameThread = true
            default: throw UsageError("--crash-on: other or same")
            }
            let linger: Int = try arguments.number("linger-ms", default: 0)
            guard (0...60_000).contains(linger) else { throw UsageError("--linger-ms 0…60000") }
            return try probeThenCrash(times: probes, onThread: onThread, sameThread: sameThread, announce: announce,
                                      probesOnly: arguments.flag("probes-only"), lingerMs: linger)
        }
        var remaining = depth
        descendThenCrash(&remaining) { crash(kind, announce: announce) }
        return 1  // Not reached: every kind crashes.
    }

    private static func crash(_ kind: Kind, announce: Bool) {
        if announce && kind != .recovered { announceCrash() }
        switch kind {
        case .segv, .double: crashBySegmentationFault()
        case .abort: crashByAbort()
        case .swiftFatal: crashBySwiftFatalError()
        case .index: _ = crashByIndexOutOfRange()
        case .overflow: _ = crashByIntegerOverflow()
        case .stack:
            var depth = 0
            crashByStackOverflow(&depth)
        case .background, .recovered:
            let thread = Thread {
                nameCurrentThread("vigil-crasher")
                if kind == .recovered && announce { announceCrash() }
                crashBySegmentationFaultOnBackgroundThread()
            }
            thread.start()
            Thread.sleep(forTimeInterval: 30)
        case .concurrent:
            let gate = DispatchSemaphore(value: 0)
            for index in 0..<2 {
                let thread = Thread {
                    nameCurrentThread("vigil-crasher-\(index)")
                    gate.wait()
                    crashBySegmentationFaultOnBackgroundThread()
                }
                thread.start()
            }
            Thread.sleep(forTimeInterval: 0.05)
            gate.signal()
            gate.signal()
            Thread.sleep(forTimeInterval: 30)
        }
    }

    /// The `recovered` kind: probes on the main thread or on "vigil-prober", then (unless
    /// `probesOnly`) a real crash on the probing thread or on "vigil-crasher".
    private static func probeThenCrash(times: Int, onThread: Bool, sameThread: Bool, announce: Bool,
                                       probesOnly: Bool, lingerMs: Int) throws -> Int32 {
        guard onThread else {
            try probe(times: times)
            if probesOnly { return printRecoveredFaults(after: lingerMs) }
            if sameThread {
                if announce { announceCrash() }
                crashBySegmentationFault()
            } else {
                crash(.recovered, announce: announce)
            }
            return 1
        }
        final class Outcome: @unchecked Sendable { var failure: String? }
        let outcome = Outcome()
        let probed = DispatchSemaphore(value: 0)
        let thread = Thread {
            nameCurrentThread("vigil-prober")
            do { try probe(times: times) } catch { outcome.failure = "\(error)" }
            probed.signal()
            if sameThread && !probesOnly && outcome.failure == nil {
                if announce { announceCrash() }
                crashBySegmentationFaultOnBackgroundThread()
            }
            while true { sleep(60) }
        }
        thread.start()
        probed.wait()
        if let failure = outcome.failure { throw UsageError(failure) }
        if probesOnly { return printRecoveredFaults(after: lingerMs) }
        if !sameThread { crash(.recovered, announce: announce) }
        Thread.sleep(forTimeInterval: 30)
        return 1
    }

    /// Prints `vigil-recovered-faults <n>` after `lingerMs`: the faults Vigil has seen recovered so
    /// far (a fault recovered by a long jump is noticed at the next fault, check or exit). Returns 0.
    private static func printRecoveredFaults(after lingerMs: Int) -> Int32 {
        if lingerMs > 0 { Thread.sleep(forTimeInterval: Double(lingerMs) / 1000) }
        _ = "vigil-recovered-faults \(CrashHandler.counters.recoveredFaults)\n".withCString { write(1, $0, strlen($0)) }
        return 0
    }

    /// Reads the probe page `times` times; the earlier handler recovers from each fault.
    private static func probe(times: Int) throws {
        let address = String(vigil_sample_probe_address(), radix: 16)
        _ = "probe-page \(address)\n".withCString { write(1, $0, strlen($0)) }
        var recovered = 0
        for _ in 0..<times where vigil_sample_probe_read() == 1 { recovered += 1 }
        _ = "probes-recovered \(recovered)\n".withCString { write(1, $0, strlen($0)) }
        guard recovered == times else { throw UsageError("only \(recovered) of \(times) probes faulted and recovered") }
    }

    /// Idle threads named `vigil-idle-<n>`, asleep in the kernel, whose stacks the handler
    /// captures by parking them.
    private static func startIdleThreads(_ count: Int) {
        guard count > 0 else { return }
        let started = DispatchSemaphore(value: 0)
        for index in 0..<count {
            let thread = Thread {
                nameCurrentThread("vigil-idle-\(index)")
                started.signal()
                while true { sleep(60) }
            }
            thread.start()
        }
        for _ in 0..<count { started.wait() }
    }

    /// Names the calling thread as the kernel shows it (`comm`, what the crash report records):
    /// Foundation's `Thread.name` does not always reach the kernel in time on Linux.
    private static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = name.withCString { write(fd, $0, strlen($0)) }
            close(fd)
            return
        }
        #endif
        Thread.current.name = name
    }

    /// `crash-at <ns>\n` on standard output, with write(2) so nothing sits in a buffer.
    private static func announceCrash() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let line = "crash-at \(UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec))\n"
        _ = line.withCString { write(1, $0, strlen($0)) }
    }
}
