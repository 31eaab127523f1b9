import Foundation
import Testing
@testable import VigilReports

/// Fingerprints group the same problem: stable across builds and ASLR, blind to system and
/// reporter frames and to what happens above a throw or abort, different for different code.
@Suite("Fingerprints")
struct FingerprintTests {
    typealias Spec = ReportBuilder.Spec

    func crash(_ frames: [Spec], appBase: UInt64 = 0x1_0200_0000, signal: String = "SIGSEGV") -> CrashReport {
        var builder = ReportBuilder(appBase: appBase)
        builder.exception("EXC_BAD_ACCESS", signal, subtype: "KERN_INVALID_ADDRESS at 0x0000000000000010")
        builder.thread(crashed: true, queue: "com.apple.main-thread", frames)
        return builder.report
    }

    func fingerprint(_ report: CrashReport) -> CrashFingerprint {
        CrashFingerprint.compute(for: report, diagnosis: CrashClassifier().classify(report))
    }

    static let stack: [Spec] = [.sys("libobjc.A.dylib", "objc_msgSend"), .app("CartView.render()"), .app("CartViewController.viewDidLoad()"),
                                .sys("UIKitCore", "-[UIViewController loadViewIfRequired]"), .app("AppCoordinator.start()")]
        + ReportBuilder.mainTail

    @Test("the same functions give the same fingerprint in another build, another slide and another UUID")
    func stableAcrossBuildsAndSlides() {
        let first = crash(Self.stack)
        var second = crash(Self.stack, appBase: 0x1_0a4c_8000)
        // Another build: other offsets and UUID for the same functions.
        second.images[0].uuid = "0F1E2D3C-4B5A-4968-8776-A5B4C3D2E1F0"
        for index in second.threads[0].frames.indices where second.threads[0].frames[index].imageIndex == 0 {
            second.threads[0].frames[index].imageOffset += 0x2468
            second.threads[0].frames[index].symbolOffset = 40
        }
        let a = fingerprint(first)
        let b = fingerprint(second)
        #expect(a.value == b.value)
        #expect(a.basis == .appFrames)
        #expect(a.components == ["CartView.render()", "CartViewController.viewDidLoad()", "AppCoordinator.start()"])
        #expect(a.value.count == 32)
    }

    @Test("system frames in between, a different system path and line numbers do not change it; a different function does")
    func appFramesOnly() {
        var noisy = Self.stack
        noisy.insert(.sys("CoreFoundation", "__CFRunLoopDoSources0"), at: 2)
        var lines = crash(Self.stack)
        lines.threads[0].frames[1].sourceFile = "CartView.swift"
        lines.threads[0].frames[1].sourceLine = 88
        #expect(fingerprint(crash(noisy)) == fingerprint(crash(Self.stack)))
        #expect(fingerprint(lines).value == fingerprint(crash(Self.stack)).value)
        var other = Self.stack
        other[1] = .app("CartView.layout()")
        #expect(fingerprint(crash(other)).value != fingerprint(crash(Self.stack)).value)
    }

    @Test("the category is part of it: the same stack with another cause groups apart")
    func categoryMatters() {
        var abort = ReportBuilder()
        abort.exception("EXC_CRASH", "SIGABRT")
        abort.thread(crashed: true, queue: "com.apple.main-thread", Self.stack)
        #expect(fingerprint(abort.report).category == .abort)
        #expect(fingerprint(abort.report).value != fingerprint(crash(Self.stack)).value)
    }

    @Test("frames above a throw or abort border are cut; the reporter's own frames are skipped")
    func borders() {
        let viaThrow: [Spec] = [.sys("libsystem_kernel.dylib", "__pthread_kill"), .sys("libsystem_c.dylib", "abort"),
                                .app("vigil_crash_handler_on_abort"), .sys("libc++abi.dylib", "__cxa_throw"),
                                .app("Inventory::at(unsigned long)"), .app("Inventory::total()")] + ReportBuilder.mainTail
        let viaTerminate: [Spec] = [.sys("libsystem_kernel.dylib", "__pthread_kill"), .sys("libsystem_pthread.dylib", "pthread_kill"),
                                    .sys("libsystem_c.dylib", "abort"), .sys("libc++abi.dylib", "std::terminate()"),
                                    .app("Vigil.CrashHandler.handleTerminate()"), .sys("libc++abi.dylib", "__cxa_throw"),
                                    .app("Inventory::at(unsigned long)"), .app("Inventory::total()")] + ReportBuilder.mainTail
        func report(_ frames: [Spec]) -> CrashReport {
            var builder = ReportBuilder()
            builder.exception("EXC_CRASH", "SIGABRT")
            builder.report.languageException = LanguageException(kind: .cplusplus, name: "std::out_of_range", reason: "vector")
            builder.thread(crashed: true, frames)
            return builder.report
        }
        let a = fingerprint(report(viaThrow))
        let b = fingerprint(report(viaTerminate))
        #expect(a.value == b.value)
        #expect(a.components == ["Inventory::at(unsigned long)", "Inventory::total()", "main"])
        // A reporter's frame on top of an app crash is skipped too.
        var reporterOnTop = Self.stack
        reporterOnTop.insert(.app("vigil_runtime_capture_stack"), at: 0)
        #expect(fingerprint(crash(reporterOnTop)).value == fingerprint(crash(Self.stack)).value)
    }

    @Test("recursion depth does not change it; names are normalized (specialized, .cold.1, offsets)")
    func normalization() {
        let shallow: [Spec] = [.app("Tree.depth(of:)"), .app("TreeView.layout()")]
        let deep: [Spec] = [.app("Tree.depth(of:)"), .app("Tree.depth(of:)"), .app("Tree.depth(of:)"), .app("TreeView.layout()")]
        #expect(fingerprint(crash(shallow)).value == fingerprint(crash(deep)).value)
        #expect(FunctionName.normalized("specialized Cart.add(_:) + 24") == "Cart.add(_:)")
        #expect(FunctionName.normalized("render_tile.cold.1") == "render_tile")
        #expect(FunctionName.normalized("@objc ViewController.viewDidLoad() (in Shop) (ViewController.swift:18)") == "ViewController.viewDidLoad()")
        #expect(FunctionName.normalized("-[UIView(Hierarchy) addSubview:] + 12") == "-[UIView(Hierarchy) addSubview:]")
        #expect(FunctionName.normalized("closure #1 in Cart.load() [inlined]") == "closure #1 in Cart.load()")
    }

    @Test("unsymbolicated app frames use image offsets, stable across slides but marked as such")
    func unsymbolicated() {
        let frames: [Spec] = [.app(nil), .app(nil), .sys("UIKitCore", "UIApplicationMain")]
        let a = fingerprint(crash(frames))
        let b = fingerprint(crash(frames, appBase: 0x1_0888_0000))
        #expect(a.value == b.value)
        #expect(a.basis == .unsymbolicated)
        #expect(a.components.allSatisfy { $0.hasPrefix("Shop+0x") })
    }

    @Test("the same report in .ips and in text form has the same fingerprint; a jetsam report uses its reason")
    func acrossFormats() throws {
        let ips = try Fixture.report("watchdog-icu-scene-create.ips")
        let text = try Fixture.report("watchdog-icu-scene-create.crash")
        #expect(fingerprint(ips) == fingerprint(text))
        let jetsam = fingerprint(try Fixture.report("jetsam-per-process-limit.ips"))
        #expect(jetsam.basis == .reason)
        #expect(jetsam.components == ["jetsam", "per-process-limit", "Shopfront"])
    }

    @Test("uncaught exceptions are keyed by where they were thrown, not by the abort path")
    func exceptionBacktrace() throws {
        let report = try Fixture.report("objc-exception.ips")
        let print = fingerprint(report)
        #expect(print.category == .uncaughtException)
        // Frames 0-2 of the Last Exception Backtrace are CoreFoundation and libobjc; 3 is the app.
        #expect(print.components.first == "Shopfront+0x64c58")
    }
}
