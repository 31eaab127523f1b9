import Foundation
import Testing
@testable import VigilReports

/// Reports as third-party tools and other platforms write them: macOS's Application Specific
/// Backtrace, simulator and Xcode paths, files holding several reports, KSCrash's text and JSON,
/// heap corruption, near-nil protection faults.
@Suite("Real-world reports")
struct RealWorldReportTests {
    static func all(_ name: String) throws -> [CrashReport] { try ReportReader.read(try Fixture.data(name)) }

    @Test("an Application Specific Backtrace is read as the exception backtrace and anchors the fingerprint")
    func applicationSpecificBacktrace() throws {
        let report = try Fixture.report("macos-uncaught-exception.crash")
        let backtrace = try #require(report.lastExceptionBacktrace)
        #expect(backtrace.count == 7)
        #expect(backtrace[1].symbol == "objc_exception_throw")
        #expect(backtrace[3].symbol == "-[LedgerTableController rowForEntry:]")
        // The second backtrace is skipped quietly, and no frame is "outside a thread".
        #expect(!report.problems.contains { $0.message.contains("backtrace line") }, "\(report.problems)")
        #expect(report.threads.count == 2)
        let analysis = ReportAnalysis(report: report)
        #expect(analysis.diagnosis.category == .uncaughtException)
        #expect(analysis.diagnosis.title.contains("-[LedgerTableController rowForEntry:]"), "\(analysis.diagnosis.title)")
        #expect(analysis.fingerprint.components == ["-[LedgerTableController rowForEntry:]",
                                                    "-[LedgerTableController tableView:viewForTableColumn:row:]"])
        // AppKit and CoreFoundation are named by Apple bundle ids in the image list: system code.
        #expect(report.images.filter { report.isAppImage($0) }.map(\.name) == ["Ledger"])
    }

    @Test("simulator runtimes, Xcode, /Library/Developer, Apple bundle ids and ??? frames never anchor a fingerprint; embedded frameworks do")
    func inAppRules() {
        var report = CrashReport(format: .appleText)
        let container = "/Users/dev/Library/Developer/CoreSimulator/Devices/1A2B3C4D-0000-4000-8000-000000000001/data/Containers/Bundle/Application/5E6F7A8B-0000-4000-8000-000000000002/Shop.app"
        report.process.path = container + "/Shop"
        let runtime = "/Library/Developer/CoreSimulator/Volumes/iOS_21E213/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS 17.4.simruntime/Contents/Resources/RuntimeRoot"
        report.images = [
            BinaryImage(name: "Shop", uuid: nil, base: 0x1_0000_0000, size: 0x10000, path: container + "/Shop"),
            BinaryImage(name: "ShopKit", uuid: nil, base: 0x1_0010_0000, size: 0x10000, path: container + "/Frameworks/ShopKit.framework/ShopKit"),
            BinaryImage(name: "RealityFoundation", uuid: nil, base: 0x1_8000_0000, size: 0x10000,
                        path: runtime + "/System/Library/Frameworks/RealityFoundation.framework/RealityFoundation"),
            BinaryImage(name: "XCTestCore", uuid: nil, base: 0x1_8100_0000, size: 0x10000,
                        path: "/Applications/Xcode-15.4.app/Contents/Developer/Platforms/iPhoneSimulator.platform/Developer/Library/PrivateFrameworks/XCTestCore.framework/XCTestCore"),
            BinaryImage(name: "libLogRedirect.dylib", uuid: nil, base: 0x1_8200_0000, size: 0x10000,
                        path: "/Library/Developer/CoreSimulator/Volumes/iOS_21E213/usr/lib/libLogRedirect.dylib"),
            BinaryImage(name: "ViewBridge", uuid: nil, base: 0x1_8300_0000, size: 0x10000, bundleID: "com.apple.ViewBridge"),
            BinaryImage(name: "Helper", uuid: nil, base: 0x1_8400_0000, size: 0x10000, path: "/Users/dev/Downloads/Xcode_16_beta.app/Contents/SharedFrameworks/Helper.framework/Helper"),
        ]
        #expect(report.images.map { report.isAppImage($0) } == [true, true, false, false, false, false, false])
        report.threads = [ThreadRecord(number: 0, crashed: true, frames: [
            StackFrame(imageIndex: nil, imageOffset: 0xdead, imageName: "???"),
            StackFrame(imageIndex: 2, imageOffset: 0x10, symbol: "RealityFoundation.Entity.update()"),
            StackFrame(imageIndex: 3, imageOffset: 0x20, symbol: "-[XCTestCase invokeTest]"),
            StackFrame(imageIndex: 4, imageOffset: 0x30, symbol: "redirect_log"),
            StackFrame(imageIndex: 5, imageOffset: 0x40, symbol: "-[NSRemoteView viewDidMove]"),
            StackFrame(imageIndex: 6, imageOffset: 0x40, symbol: "helper_call"),
            StackFrame(imageIndex: 1, imageOffset: 0x50, symbol: "ShopKit.Cart.total()"),
            StackFrame(imageIndex: 0, imageOffset: 0x60, symbol: "Shop.CheckoutView.body.getter"),
        ])]
        report.triggeredThreadIndex = 0
        report.exception = ExceptionDetails(type: "EXC_BAD_ACCESS", signal: "SIGSEGV", faultAddress: 0x4000_0000)
        let fingerprint = ReportAnalysis(report: report).fingerprint
        #expect(fingerprint.components == ["ShopKit.Cart.total()", "Shop.CheckoutView.body.getter"])
        #expect(fingerprint.basis == .appFrames)
        // Unsymbolicated, the ??? frame still does not anchor: the app's own offsets do.
        for index in report.threads[0].frames.indices { report.threads[0].frames[index].symbol = nil }
        #expect(ReportAnalysis(report: report).fingerprint.components == ["ShopKit+0x50", "Shop+0x60"])
    }

    @Test("KSCrash text: side-by-side frames give bare function names, dumps are skipped, the handler's crash is a second report")
    func ksCrashText() throws {
        let reports = try Self.all("kscrash-recrash.crash")
        try #require(reports.count == 2)
        let original = reports[0]
        #expect(original.documentIndex == 0 && original.isRecrash == nil)
        #expect(original.problems.isEmpty, "\(original.problems)")
        #expect(original.threads.count == 3)
        let top = try #require(original.triggeredThread?.frames.first)
        #expect(top.symbol == "-[PCLLabelPrinter renderLabel:]")
        #expect(top.symbolOffset == 56)
        #expect(original.image(of: top)?.name == "Parcel")
        #expect(top.imageOffset == 33448)
        #expect(original.exception?.faultAddress == 0x18)
        let analysis = ReportAnalysis(report: original)
        #expect(analysis.diagnosis.category == .nullPointer)
        #expect(analysis.fingerprint.components.first == "-[PCLLabelPrinter renderLabel:]")
        let handler = reports[1]
        #expect(handler.isRecrash == true && handler.documentIndex == 1)
        #expect(handler.process.name == "Parcel" && handler.app.bundleID == "com.example.parcel")
        #expect(handler.images.count == 6)
        #expect(handler.triggeredThread?.number == 3)
        #expect(handler.triggeredThread?.frames.map(\.symbol) == ["__vfprintf", "onCrash", "kscrashreport_writeStandardReport"])
        #expect(handler.exception?.signal == "SIGBUS")
        #expect(handler.problems.isEmpty, "\(handler.problems)")
    }

    @Test("KSCrash text: Exception Type 0 (0) is no exception, and the deadlock watchdog gives a deadlock diagnosis")
    func ksCrashDeadlock() throws {
        let report = try Fixture.report("kscrash-deadlock.crash")
        #expect(report.exception?.type == nil && report.exception?.signal == nil)
        #expect(report.problems.isEmpty, "\(report.problems)")
        let analysis = ReportAnalysis(report: report)
        #expect(analysis.diagnosis.category == .deadlock)
        #expect(analysis.diagnosis.title.contains("-[PCLStore saveShipment:]"), "\(analysis.diagnosis.title)")
    }

    @Test("a few unrecognized lines are summarised in one problem")
    func unknownLinesSummarised() throws {
        var text = String(decoding: try Fixture.data("deadlock.crash"), as: UTF8.self)
        text = text.replacingOccurrences(of: "Triggered by Thread:  0\n",
                                         with: "Triggered by Thread:  0\n\n@@ one\n@@ two\n@@ three\n")
        let report = try #require(try ReportReader.read(Data(text.utf8)).first)
        let notes = report.problems.filter { $0.message.contains("unrecognized") }
        #expect(notes.count == 1)
        #expect(notes.first?.message.hasPrefix("3 unrecognized lines skipped") == true, "\(notes)")
    }

    @Test("KSCrash JSON: bundle, OS, images, threads, NSException with its stack, user data")
    func ksCrashJSON() throws {
        let data = try Fixture.data("kscrash-nsexception.json")
        #expect(ReportReader.detectFormat(data) == .ksCrash)
        let reports = try ReportReader.read(data)
        try #require(reports.count == 1)
        let report = reports[0]
        #expect(report.format == .ksCrash && report.documentIndex == nil)
        #expect(report.app == AppDetails(bundleID: "com.example.parcel", version: "1.9.2", build: "79"))
        #expect(report.system.osName == "iOS" && report.system.osVersion == "18.0" && report.system.osBuild == "22A3354")
        #expect(report.system.deviceModel == "iPhone14,5" && report.system.architecture == "arm64")
        #expect(report.incidentID == "9A8B7C6D-5E4F-4A3B-2C1D-0E9F8A7B6C5D")
        #expect(report.captureTime?.hasPrefix("2026-07-29T") == true, "\(report.captureTime ?? "nil")")
        #expect(report.images.map(\.arch) == ["arm64", "arm64", "arm64e", "arm64e", "arm64e"])
        #expect(report.images[0].uuid == "6B2E0F1A-3C4D-5E6F-7081-92A3B4C5D6E7")
        #expect(report.threads.count == 2 && report.triggeredThreadIndex == 0)
        #expect(report.threads[0].queue == "com.apple.main-thread" && report.threads[1].name == "com.example.parcel.sync")
        #expect(report.threads[0].register("pc") == 6_471_180_120)
        #expect(report.exception?.type == "EXC_CRASH" && report.exception?.signal == "SIGABRT")
        #expect(report.languageException == LanguageException(kind: .objectiveC, name: "NSRangeException",
                                                               reason: "*** -[__NSArrayM objectAtIndex:]: index 3 beyond bounds [0 .. 1]"))
        let frame = report.threads[0].frames[3]
        #expect(report.image(of: frame)?.name == "ParcelKit" && frame.imageOffset == 4_310_180_000 - 4_310_171_648)
        #expect(frame.symbol == "-[PCLRouteTable stopAtIndex:]" && frame.symbolOffset == 100)
        #expect(report.lastExceptionBacktrace?.count == 7)
        #expect(report.extraFields.contains(ReportField(name: "user.account_tier", value: "pro")))
        let analysis = ReportAnalysis(report: report)
        #expect(analysis.diagnosis.category == .uncaughtException)
        #expect(analysis.fingerprint.components == ["-[PCLRouteTable stopAtIndex:]", "-[PCLTrackingViewController showStop:]", "main"])
    }

    @Test("KSCrash JSON with a recrash report: the original first, the handler's crash second with the original's images")
    func ksCrashRecrashJSON() throws {
        let reports = try Self.all("kscrash-recrash.json")
        try #require(reports.count == 2)
        let original = reports[0]
        #expect(original.isRecrash == nil && original.documentIndex == 0)
        #expect(original.exception?.faultAddress == 24 && original.exception?.signal == "SIGSEGV")
        #expect(original.app.bundleID == "com.example.parcel")
        #expect(ReportAnalysis(report: original).diagnosis.category == .nullPointer)
        let handler = reports[1]
        #expect(handler.isRecrash == true && handler.documentIndex == 1)
        #expect(handler.images.count == 3 && handler.app.bundleID == "com.example.parcel")
        #expect(handler.triggeredThread?.name == "KSCrash Exception Handler (Primary)")
        #expect(handler.exception?.subtype == "KERN_PROTECTION_FAILURE at 0x0000000100f00000")
        #expect(ReportAnalysis(report: handler).diagnosis.category == .protectionViolation)
    }

    @Test("an .ips file of two documents gives two reports in order")
    func severalIPSDocuments() throws {
        var data = try Fixture.data("objc-exception.ips")
        data.append(Data("\n".utf8))
        data.append(try Fixture.data("swift-force-unwrap.ips"))
        let reports = try ReportReader.read(data)
        try #require(reports.count == 2)
        #expect(reports.map(\.documentIndex) == [0, 1])
        #expect(ReportAnalysis(report: reports[0]).diagnosis.category == .uncaughtException)
        #expect(ReportAnalysis(report: reports[1]).diagnosis.category == .swiftRuntimeError)
        // A single document stays a single report without a position.
        #expect(try ReportReader.read(try Fixture.data("objc-exception.ips")).map(\.documentIndex) == [nil])
    }

    @Test("libmalloc's error paths are heap corruption with ASan and Guard Malloc advice, not abort()", arguments: [
        "___BUG_IN_CLIENT_OF_LIBMALLOC_POINTER_BEING_FREED_WAS_NOT_ALLOCATED", "malloc_error_break", "szone_error",
        "free_list_checksum_botch", "nano_free", "_xzm_xzone_malloc_freelist_outlined",
    ])
    func heapCorruption(symbol: String) {
        var builder = ReportBuilder()
        builder.exception("EXC_CRASH", "SIGABRT")
        builder.thread(crashed: true, queue: "com.apple.main-thread", [
            .sys("libsystem_kernel.dylib", "__pthread_kill"), .sys("libsystem_pthread.dylib", "pthread_kill"),
            .sys("libsystem_c.dylib", "abort"), .sys("libsystem_c.dylib", "malloc_vreport"), .sys("libsystem_c.dylib", symbol),
            .sys("libsystem_c.dylib", "free"), .app("Shop.Cache.evict(_:)"), .app("Shop.Cache.trim()"),
        ] + ReportBuilder.mainTail)
        let analysis = ReportAnalysis(report: builder.report)
        #expect(analysis.diagnosis.category == .heapCorruption)
        #expect(!analysis.diagnosis.title.contains("abort()"))
        #expect(analysis.diagnosis.title.contains("Shop.Cache.evict(_:)"))
        #expect(analysis.diagnosis.advice.joined().contains("Address Sanitizer"))
        #expect(analysis.diagnosis.advice.joined().contains("Guard Malloc"))
        #expect(analysis.fingerprint.components.first == "Shop.Cache.evict(_:)")
    }

    @Test("a plain abort() is not heap corruption")
    func plainAbortIsNotHeapCorruption() {
        var builder = ReportBuilder()
        builder.exception("EXC_CRASH", "SIGABRT")
        builder.thread(crashed: true, [.sys("libsystem_kernel.dylib", "__pthread_kill"), .sys("libsystem_c.dylib", "abort"),
                                       .app("Shop.Store.load()")] + ReportBuilder.mainTail)
        #expect(ReportAnalysis(report: builder.report).diagnosis.category == .abort)
    }

    @Test("KERN_PROTECTION_FAILURE below one page is a null pointer; a SIGSEGV's evidence never says abort()")
    func nullPointerProtectionFailure() {
        var builder = ReportBuilder()
        builder.exception("EXC_BAD_ACCESS", "SIGSEGV", subtype: "KERN_PROTECTION_FAILURE at 0x0000000000000010")
        builder.thread(crashed: true, [.app("Shop.Row.title.getter")] + ReportBuilder.mainTail)
        let analysis = ReportAnalysis(report: builder.report)
        #expect(analysis.diagnosis.category == .nullPointer)
        // A language exception recorded next to a SIGSEGV: still no abort() in any evidence.
        builder.report.languageException = LanguageException(kind: .objectiveC, name: "NSGenericException", reason: "boom")
        for diagnosis in CrashClassifier().diagnoses(builder.report) {
            #expect(!diagnosis.evidence.contains { $0.meaning.contains("abort()") || $0.value.contains("abort()") }, "\(diagnosis)")
            #expect(!diagnosis.title.contains("abort()"))
        }
        // A far protected address stays a protection violation.
        var far = ReportBuilder()
        far.exception("EXC_BAD_ACCESS", "SIGBUS", subtype: "KERN_PROTECTION_FAILURE at 0x0000000104d3c000")
        far.thread(crashed: true, [.app("Shop.Row.title.getter")] + ReportBuilder.mainTail)
        #expect(ReportAnalysis(report: far.report).diagnosis.category == .protectionViolation)
    }

    @Test("the .ips coalition is never taken for the bundle id: a process launched from Terminal is not Terminal")
    func coalitionIsNotTheBundleID() throws {
        var text = String(decoding: try Fixture.data("objc-exception.ips"), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"CFBundleIdentifier\":\"com.example.shopfront\"", with: "\"CFBundleName\":\"Shopfront\"")
        text = text.replacingOccurrences(of: "\"bundleInfo\" :", with: "\"coalitionName\" : \"com.apple.Terminal\",\n  \"bundleInfo\" :")
        let report = try #require(try ReportReader.read(Data(text.utf8)).first)
        #expect(report.app.bundleID != "com.apple.Terminal")
        #expect(report.extraFields.contains(ReportField(name: "Coalition", value: "com.apple.Terminal")))
        let written = try ReportWriter.write(report, as: .appleText)
        #expect(!written.contains("Identifier:          com.apple.Terminal"))
    }

    @Test("a Vigil event whose strings mention KSCrash's keys is still read as a Vigil event")
    func vigilEventIsNotKSCrash() throws {
        let report = try #require(try ReportReader.read(try Fixture.data("kscrash-nsexception.json")).first)
        var event = try VigilEventWriter.write(report)
        event = event.replacingOccurrences(of: "\"payload\"", with: "\"tags\": {\"note\": \"\\\"binary_images\\\" \\\"crash\\\"\"},\n  \"payload\"")
        #expect(ReportReader.detectFormat(Data(event.utf8)) == .vigil)
    }
}
