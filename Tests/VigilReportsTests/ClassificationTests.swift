import Foundation
import Testing
@testable import VigilReports

/// One test per classification rule: a report that triggers it and a near miss that must not.
@Suite("Classification rules")
struct ClassificationTests {
    typealias Spec = ReportBuilder.Spec

    func diagnose(_ rule: some DiagnosisRule, _ report: CrashReport) -> Diagnosis? {
        rule.diagnose(ReportFacts(report))
    }

    static let watchdogDetails = [
        "<RBSTerminateContext| domain:10 code:0x8BADF00D explanation:scene-create watchdog transgression: application<com.example.shop>:321 exhausted real (wall clock) time allowance of 19.97 seconds",
        "ProcessVisibility: Foreground", "ProcessState: Running", "WatchdogEvent: scene-create", "WatchdogVisibility: Foreground",
        "WatchdogCPUStatistics: (", "\"Elapsed total CPU time (seconds): 15.290 (user 15.290, system 0.000), 28% CPU\",",
        "\"Elapsed application CPU time (seconds): 0.367, 1% CPU\"", ") reportType:CrashLog maxTerminationResistance:Interactive>",
    ]

    func watchdogReport(main: [Spec], details: [String] = watchdogDetails, code: UInt64 = TerminationCode.watchdog) -> CrashReport {
        var builder = ReportBuilder()
        builder.exception("EXC_CRASH", "SIGKILL", codes: [0, 0])
        builder.termination("FRONTBOARD", code, details)
        builder.thread(crashed: true, queue: "com.apple.main-thread", main)
        builder.thread([.sys("libsystem_pthread.dylib", "start_wqthread")])
        return builder.report
    }

    // MARK: Watchdog

    @Test("the articles' NSDateFormatter → ICU → pthread_mutex_lock watchdog gets the lock-during-launch diagnosis with its allowance")
    func watchdogICULock() throws {
        for name in ["watchdog-icu-scene-create.ips", "watchdog-icu-scene-create.crash"] {
            let report = try Fixture.report(name)
            let diagnosis = CrashClassifier().classify(report)
            #expect(diagnosis.ruleID == "watchdog", "\(name)")
            #expect(diagnosis.category == .watchdog)
            #expect(diagnosis.title == "Watchdog: the main thread waited on a lock during launch (scene-create); the allowance was 3.43 s")
            #expect(diagnosis.confidence == .high)
            #expect(diagnosis.fact("allowanceSeconds") == "3.43")
            #expect(diagnosis.fact("phase") == "launch")
            #expect(diagnosis.fact("mainThreadActivity") == "lock")
            #expect(diagnosis.fact("lockHolderThread") == "4")
            let evidence = diagnosis.evidence.map(\.value).joined(separator: "\n")
            #expect(evidence.contains("__psynch_mutexwait"))
            #expect(evidence.contains("icu::Locale::getDefault()"))
            #expect(evidence.contains("-[NSDateFormatter _regenerateFormatter]"))
            #expect(diagnosis.advice.contains { $0.contains("NSDateFormatter") })
        }
    }

    @Test("watchdog: phase (launch, resume, other) and main-thread activity (semaphore, dispatch_sync, network, file, database, busy, idle)")
    func watchdogVariants() throws {
        let rule = WatchdogRule()
        let semaphore = watchdogReport(main: [.sys("libsystem_kernel.dylib", "semaphore_wait_trap"),
                                              .sys("libdispatch.dylib", "_dispatch_sema4_wait"),
                                              .sys("libdispatch.dylib", "_dispatch_semaphore_wait_slow"),
                                              .app("SyncClient.fetch()")] + ReportBuilder.mainTail)
        #expect(diagnose(rule, semaphore)?.fact("mainThreadActivity") == "semaphore")
        let sync = watchdogReport(main: [.sys("libsystem_kernel.dylib", "__ulock_wait"),
                                         .sys("libdispatch.dylib", "_dispatch_thread_event_wait_slow"),
                                         .sys("libdispatch.dylib", "__DISPATCH_WAIT_FOR_QUEUE__"),
                                         .sys("libdispatch.dylib", "_dispatch_sync_f_slow"),
                                         .app("Store.snapshot()")] + ReportBuilder.mainTail)
        #expect(diagnose(rule, sync)?.fact("mainThreadActivity") == "dispatch-sync")
        let network = watchdogReport(main: [.sys("libsystem_kernel.dylib", "semaphore_wait_trap"),
                                            .sys("libdispatch.dylib", "_dispatch_semaphore_wait_slow"),
                                            .sys("CFNetwork", "CFURLConnectionSendSynchronousRequest"),
                                            .sys("CFNetwork", "+[NSURLConnection sendSynchronousRequest:returningResponse:error:]"),
                                            .sys("Foundation", "-[NSString initWithContentsOfURL:usedEncoding:error:]"),
                                            .app("ViewController.loadData()")] + ReportBuilder.mainTail)
        let networkDiagnosis = try #require(diagnose(rule, network))
        #expect(networkDiagnosis.fact("mainThreadActivity") == "network-io")
        #expect(networkDiagnosis.advice.contains { $0.contains("URLSession") })
        let file = watchdogReport(main: [.sys("libsystem_kernel.dylib", "__pread_nocancel"),
                                         .sys("Foundation", "-[NSData initWithContentsOfFile:options:error:]"),
                                         .app("Catalog.load()")] + ReportBuilder.mainTail)
        #expect(diagnose(rule, file)?.fact("mainThreadActivity") == "file-io")
        let database = watchdogReport(main: [.sys("libsystem_kernel.dylib", "__pread_nocancel"), .sys("libsqlite3.dylib", "unixRead"),
                                             .sys("libsqlite3.dylib", "sqlite3_step"), .app("OrdersDB.all()")] + ReportBuilder.mainTail)
        #expect(diagnose(rule, database)?.fact("mainThreadActivity") == "database")
        let busy = watchdogReport(main: [.app("ImageDecoder.decode(_:)"), .app("Gallery.viewDidLoad()")] + ReportBuilder.mainTail)
        let busyDiagnosis = try #require(diagnose(rule, busy))
        #expect(busyDiagnosis.fact("mainThreadActivity") == "busy")
        #expect(busyDiagnosis.title.contains("was busy on the CPU during launch"))
        let idle = watchdogReport(main: ReportBuilder.idleMain)
        #expect(diagnose(rule, idle)?.fact("mainThreadActivity") == "idle")

        var resumeDetails = Self.watchdogDetails
        resumeDetails[0] = "<RBSTerminateContext| domain:10 code:0x8BADF00D explanation:scene-resume watchdog transgression: exhausted real (wall clock) time allowance of 10.00 seconds"
        resumeDetails[3] = "WatchdogEvent: scene-resume"
        let resume = try #require(diagnose(rule, watchdogReport(main: ReportBuilder.idleMain, details: resumeDetails)))
        #expect(resume.fact("phase") == "resume")
        #expect(resume.fact("allowanceSeconds") == "10.00")
        #expect(resume.title.contains("while returning to the foreground"))
        let exit = try #require(diagnose(rule, watchdogReport(main: ReportBuilder.idleMain, details: [
            "<RBSTerminateContext| domain:10 code:0x8BADF00D explanation:[app<com.example.shop>:321] Failed to terminate gracefully after 5.0s",
            "WatchdogEvent: process-exit"])))
        #expect(exit.fact("phase") == "termination" || exit.fact("phase") == "exit")
        #expect(exit.fact("allowanceSeconds") == "5.00")
        // The iOS 13 wording: "failed to scene-create after 19.93s (… total time limit 20.00s)".
        let legacy = try #require(diagnose(rule, watchdogReport(main: ReportBuilder.idleMain, details: [
            "SPRINGBOARD, com.example.shop failed to scene-create after 19.93s (launch took 0.07s of total time limit 20.00s)"])))
        #expect(legacy.fact("phase") == "launch")
        #expect(legacy.fact("allowanceSeconds") == "20.00")
    }

    @Test("watchdog: a SIGKILL with another termination code is not a watchdog")
    func watchdogNearMiss() {
        let report = watchdogReport(main: ReportBuilder.idleMain, code: TerminationCode.thermal)
        #expect(diagnose(WatchdogRule(), report) == nil)
        #expect(CrashClassifier().classify(report).ruleID == "thermal")
    }

    // MARK: Deadlock

    @Test("main-thread deadlock: lock order inversion between the main thread and a queue; contention alone is not one")
    func deadlock() throws {
        let report = try Fixture.report("deadlock.crash")
        let diagnosis = try #require(diagnose(DeadlockRule(), report))
        #expect(diagnosis.category == .deadlock)
        #expect(diagnosis.confidence == .high)
        #expect(diagnosis.title.contains("ImageCache.store(_:for:)"))
        #expect(diagnosis.title.contains("Catalog.reload()"))
        #expect(diagnosis.fact("otherThread") == "2")
        #expect(CrashClassifier().classify(report).ruleID == "main-thread-deadlock")

        // The other thread waits on the same lock but holds nothing the main thread wants.
        var builder = ReportBuilder()
        builder.termination("FRONTBOARD", TerminationCode.watchdog, Self.watchdogDetails)
        builder.thread(crashed: true, queue: "com.apple.main-thread", [
            .sys("libsystem_kernel.dylib", "__psynch_mutexwait"), .sys("libsystem_pthread.dylib", "pthread_mutex_lock"),
            .app("ImageCache.store(_:for:)"), .app("Catalog.reload()")] + ReportBuilder.mainTail)
        builder.thread(queue: "com.example.worker", [
            .sys("libsystem_kernel.dylib", "__psynch_mutexwait"), .sys("libsystem_pthread.dylib", "pthread_mutex_lock"),
            .app("ImageCache.store(_:for:)"), .app("Prefetcher.run()"), .sys("libdispatch.dylib", "_dispatch_client_callout")])
        #expect(diagnose(DeadlockRule(), builder.report) == nil)
    }

    @Test("main-thread deadlock: another thread synchronously waiting for the main thread while it is blocked")
    func deadlockWaitingForMain() throws {
        var builder = ReportBuilder()
        builder.thread(crashed: true, queue: "com.apple.main-thread", [
            .sys("libsystem_kernel.dylib", "semaphore_wait_trap"), .sys("libdispatch.dylib", "_dispatch_semaphore_wait_slow"),
            .app("Session.waitForToken()")] + ReportBuilder.mainTail)
        builder.thread(queue: "com.example.auth", [
            .sys("libsystem_kernel.dylib", "__psynch_cvwait"), .sys("libsystem_pthread.dylib", "_pthread_cond_wait"),
            .sys("Foundation", "-[NSCondition wait]"),
            .sys("Foundation", "-[NSObject(NSThreadPerformAdditions) performSelectorOnMainThread:withObject:waitUntilDone:modes:]"),
            .app("TokenStore.refresh()")])
        let diagnosis = try #require(diagnose(DeadlockRule(), builder.report))
        #expect(diagnosis.confidence == .medium)
        #expect(diagnosis.title.contains("waits for the main thread"))
    }

    // MARK: System terminations

    @Test("0xdead10cc: file or SQLite lock held while suspended, naming the SQLite thread")
    func fileLock() throws {
        var builder = ReportBuilder()
        builder.exception("EXC_CRASH", "SIGKILL")
        builder.termination("RUNNINGBOARD", TerminationCode.deadlock)
        builder.thread(crashed: true, queue: "com.apple.main-thread", ReportBuilder.idleMain)
        builder.thread(queue: "com.example.db", [.sys("libsystem_kernel.dylib", "__fsync"), .sys("libsqlite3.dylib", "unixSync"),
                                                  .sys("libsqlite3.dylib", "sqlite3_step"), .app("OrdersDB.save()")])
        let diagnosis = try #require(diagnose(FileLockRule(), builder.report))
        #expect(diagnosis.category == .fileLockWhileSuspended)
        #expect(diagnosis.evidence.contains { $0.location.hasPrefix("threads[1]") && $0.value.contains("sqlite3_step") })
        #expect(diagnosis.advice.contains { $0.contains("beginBackgroundTask") })
        #expect(diagnose(FileLockRule(), watchdogReport(main: ReportBuilder.idleMain)) == nil)
    }

    @Test("0xc00010ff: thermal termination")
    func thermal() throws {
        let report = watchdogReport(main: ReportBuilder.idleMain, details: ["ThermalInfo: (", "\"Thermal Level:   12\"", ")"],
                                    code: TerminationCode.thermal)
        let diagnosis = try #require(diagnose(ThermalRule(), report))
        #expect(diagnosis.category == .thermal)
        #expect(diagnosis.evidence.contains { $0.value.contains("Thermal Level") })
        #expect(diagnose(ThermalRule(), watchdogReport(main: ReportBuilder.idleMain)) == nil)
    }

    @Test("0x2182bad2/3/4: background task, URL session and fetch expiry", arguments: [
        (TerminationCode.backgroundTaskExpired, "background task"),
        (TerminationCode.backgroundURLSessionExpired, "background URL session"),
        (TerminationCode.backgroundFetchExpired, "background fetch"),
    ])
    func backgroundTime(code: UInt64, what: String) throws {
        let report = watchdogReport(main: ReportBuilder.idleMain, details: [], code: code)
        let diagnosis = try #require(diagnose(BackgroundTimeRule(), report))
        #expect(diagnosis.category == .backgroundTimeExpired)
        #expect(diagnosis.title.contains(what))
        #expect(diagnose(BackgroundTimeRule(), watchdogReport(main: ReportBuilder.idleMain, details: [], code: 0x2182_BAD5)) == nil)
    }

    @Test("SIGKILL by RunningBoard with another code is a system termination; a plain SIGSEGV is not")
    func runningBoard() throws {
        let report = watchdogReport(main: ReportBuilder.idleMain, details: [], code: TerminationCode.diskSpace)
        var runningBoard = report
        runningBoard.termination?.namespace = "RUNNINGBOARD"
        let diagnosis = try #require(diagnose(SystemTerminationRule(), runningBoard))
        #expect(diagnosis.category == .systemTermination)
        #expect(diagnosis.title.contains("RunningBoard"))
        #expect(diagnosis.title.contains("disk space"))
        let unknown = try #require(diagnose(SystemTerminationRule(), watchdogReport(main: ReportBuilder.idleMain, details: [], code: 0x1234)))
        #expect(unknown.title.contains("0x1234"))
        var segv = ReportBuilder()
        segv.exception("EXC_BAD_ACCESS", "SIGSEGV", subtype: "KERN_INVALID_ADDRESS at 0x0000000000000010")
        segv.thread(crashed: true, queue: "com.apple.main-thread", [.app("Cart.total()")] + ReportBuilder.mainTail)
        #expect(diagnose(SystemTerminationRule(), segv.report) == nil)
        // A watchdog kill is the watchdog rule's, not this one's.
        #expect(diagnose(SystemTerminationRule(), watchdogReport(main: ReportBuilder.idleMain)) == nil)
    }

    // MARK: Jetsam

    @Test("jetsam: per-process limit (with the footprint) versus system memory pressure; crash reports are not jetsam")
    func jetsam() throws {
        let limit = try #require(diagnose(JetsamRule(), try Fixture.report("jetsam-per-process-limit.ips")))
        #expect(limit.category == .memoryPressure)
        #expect(limit.title == "Jetsam: Shopfront exceeded its memory limit (1520 MB resident)")
        #expect(limit.fact("jetsamReason") == "per-process-limit")
        #expect(limit.fact("residentBytes") == "1520467968")
        let pressure = try #require(diagnose(JetsamRule(), try Fixture.report("jetsam-vm-pageshortage.ips")))
        #expect(pressure.title.contains("system memory pressure (vm-pageshortage)"))
        #expect(pressure.evidence.contains { $0.value == "Camera" })
        #expect(diagnose(JetsamRule(), try Fixture.report("objc-exception.ips")) == nil)
    }

    // MARK: Memory access

    @Test("EXC_BAD_ACCESS below a page is a null pointer; far away is an invalid pointer; protection failure is its own")
    func badAccess() throws {
        func report(_ subtype: String, top: Spec = .app("Cart.total()"), pc: UInt64? = nil) -> CrashReport {
            var builder = ReportBuilder()
            builder.exception("EXC_BAD_ACCESS", "SIGSEGV", subtype: subtype)
            builder.thread(crashed: true, queue: "com.apple.main-thread", [top, .app("CartView.render()")] + ReportBuilder.mainTail,
                           registers: pc.map { [Register(name: "pc", value: $0)] } ?? [])
            return builder.report
        }
        let rule = BadAccessRule()
        let null = try #require(diagnose(rule, report("KERN_INVALID_ADDRESS at 0x0000000000000010")))
        #expect(null.category == .nullPointer)
        #expect(null.title.contains("0x10"))
        #expect(null.title.contains("Cart.total()"))
        let wild = try #require(diagnose(rule, report("KERN_INVALID_ADDRESS at 0x00000004a81c2b10")))
        #expect(wild.category == .invalidPointer)
        let pac = try #require(diagnose(rule, report("KERN_INVALID_ADDRESS at 0x00006f126c1a9aa0 -> 0x000000126c1a9aa0 (possible pointer authentication failure)")))
        #expect(pac.category == .invalidPointer)
        #expect(pac.title.contains("pointer authentication"))
        let zombie = try #require(diagnose(rule, report("KERN_INVALID_ADDRESS at 0x0000000c00000010", top: .sys("libobjc.A.dylib", "objc_msgSend"))))
        #expect(zombie.title.contains("zombie"))
        let jump = try #require(diagnose(rule, report("KERN_INVALID_ADDRESS at 0x0000000a00000040", pc: 0xA_0000_0040)))
        #expect(jump.title.contains("jump"))
        let protection = try #require(diagnose(rule, report("KERN_PROTECTION_FAILURE at 0x0000000102b3c000")))
        #expect(protection.category == .protectionViolation)
        // x86_64 pages are 4 KiB: 0x2000 is beyond the first page there.
        var x86 = report("KERN_INVALID_ADDRESS at 0x0000000000002000")
        x86.system.architecture = "x86_64"
        #expect(diagnose(rule, x86)?.category == .invalidPointer)
        #expect(diagnose(rule, report("KERN_INVALID_ADDRESS at 0x0000000000002000"))?.category == .nullPointer)
        // Not a memory access exception.
        var trap = ReportBuilder()
        trap.exception("EXC_BREAKPOINT", "SIGTRAP")
        trap.thread(crashed: true, [.app("Cart.total()")])
        #expect(diagnose(rule, trap.report) == nil)
    }

    @Test("stack overflow: fault in the stack guard with a recursing function; an ordinary bad access is not one")
    func stackOverflow() throws {
        let report = try Fixture.report("stack-overflow.crash")
        let diagnosis = try #require(diagnose(StackOverflowRule(), report))
        #expect(diagnosis.category == .stackOverflow)
        #expect(diagnosis.fact("recursiveFunction") == "CategoryTree.depth(of:)")
        #expect(diagnosis.evidence.contains { $0.location == "vmRegionInfo" && $0.value.contains("STACK GUARD") })
        #expect(CrashClassifier().classify(report).ruleID == "stack-overflow")
        var message = ReportBuilder()
        message.exception("EXC_BAD_ACCESS", "SIGBUS", subtype: "KERN_PROTECTION_FAILURE at 0x000000016f603ff0",
                          message: "Thread stack size exceeded due to excessive recursion")
        message.thread(crashed: true, [.app("Parser.parse(_:)")])
        #expect(diagnose(StackOverflowRule(), message.report) != nil)
        var plain = ReportBuilder()
        plain.exception("EXC_BAD_ACCESS", "SIGSEGV", subtype: "KERN_INVALID_ADDRESS at 0x0000000000000010")
        plain.thread(crashed: true, [.app("Cart.total()")] + ReportBuilder.mainTail)
        #expect(diagnose(StackOverflowRule(), plain.report) == nil)
    }

    // MARK: Language exceptions and runtime errors

    @Test("SIGABRT with an uncaught Objective-C exception names it, its reason and where it was thrown")
    func objectiveCException() throws {
        let report = try Fixture.report("objc-exception.ips")
        let diagnosis = try #require(diagnose(UncaughtExceptionRule(), report))
        #expect(diagnosis.category == .uncaughtException)
        #expect(diagnosis.title.hasPrefix("Uncaught NSRangeException: *** -[__NSArrayI objectAtIndex:]: index 5 beyond bounds [0 .. 2]"))
        #expect(diagnosis.evidence.contains { $0.location.hasPrefix("lastExceptionBacktrace[3]") })
        #expect(diagnosis.advice.first?.contains("out of bounds") == true)
        #expect(CrashClassifier().classify(report).ruleID == "uncaught-exception")
    }

    @Test("SIGABRT with an uncaught C++ exception; a plain abort() is not an exception")
    func cplusplusException() throws {
        var builder = ReportBuilder()
        builder.exception("EXC_CRASH", "SIGABRT")
        builder.report.applicationSpecificInfo = ["abort() called",
                                                  "libc++abi: terminating due to uncaught exception of type std::out_of_range: vector"]
        builder.report.languageException = LanguageExceptionText.find(in: builder.report.applicationSpecificInfo)
        builder.thread(crashed: true, [.sys("libsystem_kernel.dylib", "__pthread_kill"), .sys("libsystem_c.dylib", "abort"),
                                       .sys("libc++abi.dylib", "std::__terminate(void (*)())"),
                                       .sys("libc++abi.dylib", "__cxa_throw"), .app("Inventory::at(unsigned long)")])
        let diagnosis = try #require(diagnose(UncaughtExceptionRule(), builder.report))
        #expect(diagnosis.title.hasPrefix("Uncaught std::out_of_range: vector"))
        #expect(diagnosis.fact("exceptionName") == "std::out_of_range")

        var plain = ReportBuilder()
        plain.exception("EXC_CRASH", "SIGABRT")
        plain.report.applicationSpecificInfo = ["abort() called"]
        plain.thread(crashed: true, [.sys("libsystem_kernel.dylib", "__pthread_kill"), .sys("libsystem_c.dylib", "abort"),
                                     .app("Checker.verify()")])
        #expect(diagnose(UncaughtExceptionRule(), plain.report) == nil)
        #expect(CrashClassifier().classify(plain.report).ruleID == "abort")
    }

    @Test("Swift runtime traps: force unwrap (message), index out of range (symbols), failed cast; an API-misuse trap is not one")
    func swiftRuntimeErrors() throws {
        let unwrap = try #require(diagnose(SwiftRuntimeErrorRule(), try Fixture.report("swift-force-unwrap.ips")))
        #expect(unwrap.category == .swiftRuntimeError)
        #expect(unwrap.fact("swiftErrorKind") == "force-unwrap-nil")
        #expect(unwrap.confidence == .high)
        #expect(unwrap.evidence.contains { $0.value == "0xf2000001" })

        var index = ReportBuilder()
        index.exception("EXC_BREAKPOINT", "SIGTRAP", codes: [1, 0x1_0200_4000])
        index.thread(crashed: true, [.sys("libswiftCore.dylib", "Swift._assertionFailure(_: Swift.StaticString, _: Swift.StaticString, file: Swift.StaticString, line: Swift.UInt, flags: Swift.UInt32) -> Swift.Never"),
                                     .sys("libswiftCore.dylib", "Swift._ArrayBuffer._checkInoutAndNativeTypeCheckedBounds(_: Swift.Int, wasNativeTypeChecked: Swift.Bool) -> ()"),
                                     .app("Cart.item(at:)")] + ReportBuilder.mainTail)
        let indexDiagnosis = try #require(diagnose(SwiftRuntimeErrorRule(), index.report))
        #expect(indexDiagnosis.fact("swiftErrorKind") == "index-out-of-range")
        #expect(indexDiagnosis.title.contains("Cart.item(at:)"))

        var cast = ReportBuilder()
        cast.exception("EXC_BAD_INSTRUCTION", "SIGILL")
        cast.report.system.architecture = "x86_64"
        cast.report.applicationSpecificInfo = ["Could not cast value of type 'Swift.Int' (0x10b2d4a10) to 'Swift.String' (0x10b2d8f48)."]
        cast.thread(crashed: true, [.sys("libswiftCore.dylib", "swift::swift_dynamicCastFailure(void const*, char const*, void const*, char const*, char const*)"),
                                    .app("Settings.value(for:)")])
        #expect(diagnose(SwiftRuntimeErrorRule(), cast.report)?.fact("swiftErrorKind") == "failed-cast")

        var misuse = ReportBuilder()
        misuse.exception("EXC_BREAKPOINT", "SIGTRAP")
        misuse.report.applicationSpecificInfo = ["BUG IN CLIENT OF LIBDISPATCH: dispatch_sync called on queue already owned by current thread"]
        misuse.thread(crashed: true, [.sys("libdispatch.dylib", "__DISPATCH_WAIT_FOR_QUEUE__"), .sys("libdispatch.dylib", "_dispatch_sync_f_slow"),
                                      .app("Store.snapshot()")])
        #expect(diagnose(SwiftRuntimeErrorRule(), misuse.report) == nil)
        #expect(CrashClassifier().classify(misuse.report).ruleID == "abort")
        #expect(CrashClassifier().classify(misuse.report).title.contains("BUG IN CLIENT OF LIBDISPATCH"))
    }

    @Test("abort() without an exception: heap corruption message; a crash without SIGABRT is not an abort")
    func abort() throws {
        var builder = ReportBuilder()
        builder.exception("EXC_CRASH", "SIGABRT")
        builder.report.applicationSpecificInfo = ["abort() called", "Shop(321,0x1f2b1c000) malloc: *** error for object 0x282a3c4e0: pointer being freed was not allocated"]
        builder.thread(crashed: true, [.sys("libsystem_kernel.dylib", "__pthread_kill"), .sys("libsystem_c.dylib", "abort"),
                                       .sys("libsystem_c.dylib", "malloc_vreport"), .app("Buffer.deinit")])
        let diagnosis = try #require(diagnose(AbortRule(), builder.report))
        #expect(diagnosis.category == .abort)
        #expect(diagnosis.title.hasPrefix("Heap corruption"))
        var segv = ReportBuilder()
        segv.exception("EXC_BAD_ACCESS", "SIGSEGV", subtype: "KERN_INVALID_ADDRESS at 0x0000000000000000")
        segv.thread(crashed: true, [.app("Cart.total()")])
        #expect(diagnose(AbortRule(), segv.report) == nil)
    }

    // MARK: Hangs and resources

    @Test("hang reports: duration and what the main thread did; crash reports are not hangs")
    func hang() throws {
        var builder = ReportBuilder(kind: .hang)
        builder.report.hang = HangDetails(durationMs: 2500)
        builder.thread(crashed: true, queue: "com.apple.main-thread", [
            .sys("libsystem_kernel.dylib", "__psynch_mutexwait"), .sys("libsystem_pthread.dylib", "pthread_mutex_lock"),
            .app("Cache.read()")] + ReportBuilder.mainTail)
        let diagnosis = try #require(diagnose(HangRule(), builder.report))
        #expect(diagnosis.category == .hang)
        #expect(diagnosis.title == "Hang of 2.5 s: the main thread waited on a lock in Cache.read()")
        #expect(diagnose(HangRule(), try Fixture.report("swift-force-unwrap.ips")) == nil)
    }

    @Test("MetricKit CPU, disk-write and launch diagnostics and EXC_RESOURCE; an ordinary crash is none of them")
    func resource() throws {
        let rule = ResourceRule()
        var cpu = ReportBuilder(kind: .cpuException, format: .metricKit)
        cpu.report.resource = ResourceUsage(cpuTimeSeconds: 90, sampledSeconds: 180)
        cpu.thread([.app("Thumbnailer.render()"), .sys("libdispatch.dylib", "_dispatch_client_callout")])
        let cpuDiagnosis = try #require(diagnose(rule, cpu.report))
        #expect(cpuDiagnosis.category == .cpuUsage)
        #expect(cpuDiagnosis.title == "Excessive CPU use: 90 s of CPU in 180 s in Thumbnailer.render() in Shop")
        var disk = ReportBuilder(kind: .diskWriteException, format: .metricKit)
        disk.report.resource = ResourceUsage(bytesWritten: 1_073_741_824)
        disk.thread([.app("Logger.flush()")])
        #expect(diagnose(rule, disk.report)?.category == .diskWrites)
        var launch = ReportBuilder(kind: .launch, format: .metricKit)
        launch.report.resource = ResourceUsage(launchDurationMs: 20_000)
        launch.thread([.app("AppDelegate.application(_:didFinishLaunchingWithOptions:)")])
        #expect(diagnose(rule, launch.report)?.category == .slowLaunch)
        var memory = ReportBuilder()
        memory.exception("EXC_RESOURCE", nil, subtype: "MEMORY (limit=2098 MB, unused=0x0)")
        memory.thread(crashed: true, [.app("Loader.decode()")])
        #expect(diagnose(rule, memory.report)?.category == .memoryPressure)
        #expect(diagnose(rule, try Fixture.report("swift-force-unwrap.ips")) == nil)
    }

    @Test("with no matching rule the classifier still answers, with low confidence")
    func fallback() {
        var builder = ReportBuilder()
        builder.exception("EXC_ARITHMETIC", "SIGFPE")
        builder.thread(crashed: true, [.app("Stats.mean()")])
        let diagnosis = CrashClassifier().classify(builder.report)
        #expect(diagnosis.ruleID == "unknown")
        #expect(diagnosis.confidence == .low)
        #expect(diagnosis.title.contains("Stats.mean()"))
    }
}
