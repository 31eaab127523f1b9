import Foundation
import Testing
@testable import Vigil
import VigilCore
import VigilReports
import VigilTestSupport

/// MetricKit payload → events, as the Apple subscriber runs it, on real payloads: a real iOS 14
/// payload with a SIGTRAP and a SIGSEGV crash, and an Xcode-simulated macOS 13 payload with one
/// diagnostic of each kind. The files are ChimeHQ/Meter's test resources (BSD-3-Clause,
/// `Tests/Fixtures/corpus/metrickit/LICENSE`), copied unchanged.
@Suite("MetricKit payload to events")
struct MetricKitEventConverterTests {
    private static func fixture(_ name: String) throws -> Data {
        let url = BuildProducts.packageRoot.appendingPathComponent("Tests/Fixtures/corpus/metrickit/\(name)")
        guard let data = FileManager.default.contents(atPath: url.path) else { throw TestSupportError("\(url.path) is missing") }
        return data
    }

    private let app = AppInfo(id: "com.example.shop", version: "3.2.0", build: "412")
    private let device = DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: "17.1", arch: "arm64")

    private func converter(_ modules: Set<VigilModule> = Set(VigilModule.allCases)) -> MetricKitEventConverter {
        MetricKitEventConverter(app: app, device: device, modules: modules)
    }

    @Test("crashes the in-process handler records (SIGTRAP, SIGSEGV) are skipped as duplicates while crash capture is on")
    func caughtCrashesAreDuplicates() throws {
        var counters = MetricKitEventConverter.Counters()
        let events = converter().events(fromDiagnosticPayload: try Self.fixture("real_report.json"), counters: &counters)
        #expect(events.isEmpty)
        #expect(counters.duplicates == 2 && counters.converted == 0 && counters.unreadable == 0)
    }

    @Test("with crash capture off, or asked to, the same crashes become crash events with the payload's stacks and images")
    func crashEventsWhenNotCaught() throws {
        var counters = MetricKitEventConverter.Counters()
        var modules = Set(VigilModule.allCases)
        modules.remove(.crash)
        let events = converter(modules).events(fromDiagnosticPayload: try Self.fixture("real_report.json"), counters: &counters)
        #expect(events.count == 2 && counters.converted == 2)
        let segv = try #require(events.first { event in
            if case .crash(let crash) = event.payload { return crash.signal == "SIGSEGV" }
            return false
        })
        guard case .crash(let crash) = segv.payload else { Issue.record("not a crash"); return }
        #expect(crash.threads.contains { $0.crashed && !$0.frames.isEmpty })
        // The real payload's quirk: offsetIntoBinaryTextSegment is the load address.
        #expect(segv.images?.contains { $0.name == "MetricKitTest" && $0.loadAddress.value == 4_303_978_496 } == true)
        #expect(segv.tags["source"] == "metrickit")
        #expect(segv.app.id == "com.example.shop", "the payload has no bundle id: the SDK's is used")
        #expect(segv.app.version == "1.0" && segv.app.build == "1", "the version is the payload's, not the running app's")
        #expect(segv.device.model == "iPhone10,2")

        var asked = converter()
        asked.includesCaughtCrashes = true
        var again = MetricKitEventConverter.Counters()
        #expect(asked.events(fromDiagnosticPayload: try Self.fixture("real_report.json"), counters: &again).count == 2)
    }

    @Test("a watchdog kill (SIGKILL, FRONTBOARD 0x8badf00d) is reported even with crash capture on: no handler sees it")
    func watchdogKillIsReported() throws {
        var text = String(decoding: try Self.fixture("real_report.json"), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"signal\" : 11", with: "\"signal\" : 9")
            .replacingOccurrences(of: "\"signal\" : 5", with: "\"signal\" : 9")
            .replacingOccurrences(of: "\"exceptionType\" : 1,", with: "\"exceptionType\" : 10,")
            .replacingOccurrences(of: "\"exceptionType\" : 6,", with: "\"exceptionType\" : 10,")
            .replacingOccurrences(of: "Namespace SIGNAL, Code 0xb", with: "Namespace FRONTBOARD, Code 0x8badf00d")
        #expect(text.contains("\"signal\" : 9"), "the fixture's layout changed; the substitutions no longer apply")
        var counters = MetricKitEventConverter.Counters()
        let events = converter().events(fromDiagnosticPayload: Data(text.utf8), counters: &counters)
        #expect(events.count == 2 && counters.duplicates == 0)
        let watchdog = try #require(events.compactMap { event -> CrashPayload? in
            if case .crash(let crash) = event.payload { return crash }
            return nil
        }.first { $0.terminationReason?.contains("0x8badf00d") == true })
        #expect(watchdog.signal == "SIGKILL")
    }

    @Test("EXC_GUARD and EXC_RESOURCE are never duplicates; SIGKILL never is; caught signals and exceptions are")
    func handlerCoverageRule() {
        func report(type: String?, signal: String?) -> CrashReport {
            var report = CrashReport(format: .metricKit, kind: .crash)
            var exception = ExceptionDetails()
            exception.type = type
            exception.signal = signal
            report.exception = exception
            return report
        }
        #expect(!MetricKitEventConverter.inProcessHandlerRecords(report(type: "EXC_GUARD", signal: "SIGKILL")))
        #expect(!MetricKitEventConverter.inProcessHandlerRecords(report(type: "EXC_GUARD", signal: nil)))
        #expect(!MetricKitEventConverter.inProcessHandlerRecords(report(type: "EXC_RESOURCE", signal: "SIGKILL")))
        #expect(!MetricKitEventConverter.inProcessHandlerRecords(report(type: "EXC_CRASH", signal: "SIGKILL")))
        #expect(MetricKitEventConverter.inProcessHandlerRecords(report(type: "EXC_CRASH", signal: "SIGABRT")))
        #expect(MetricKitEventConverter.inProcessHandlerRecords(report(type: "EXC_BAD_ACCESS", signal: nil)))
        #expect(MetricKitEventConverter.inProcessHandlerRecords(report(type: nil, signal: "SIGSEGV")))
        #expect(!MetricKitEventConverter.inProcessHandlerRecords(report(type: nil, signal: nil)))
    }

    @Test("one payload of every kind: hang skipped while hang detection is on; CPU, disk-write and launch become warn logs with their numbers")
    func everyKind() throws {
        var counters = MetricKitEventConverter.Counters()
        let events = converter().events(fromDiagnosticPayload: try Self.fixture("xcode_simulated_macOS_13.json"), counters: &counters)
        #expect(counters.duplicates == 2, "the SIGSEGV crash and the hang")
        #expect(counters.converted == 3 && events.count == 3)
        let logs = events.compactMap { event -> LogPayload? in
            if case .log(let log) = event.payload { return log }
            return nil
        }
        #expect(logs.count == 3 && logs.allSatisfy { $0.level == .warn })
        let cpu = try #require(logs.first { $0.attributes?["metricKit.kind"] == .string("cpuException") })
        #expect(cpu.attributes?["cpuTimeSeconds"] == .double(20) && cpu.message.contains("20 s of CPU"))
        let disk = try #require(logs.first { $0.attributes?["metricKit.kind"] == .string("diskWriteException") })
        #expect(disk.attributes?["bytesWritten"] == .double(2000))
        let launch = try #require(logs.first { $0.attributes?["metricKit.kind"] == .string("launch") })
        #expect(launch.attributes?["launchDurationMs"] == .double(20_000))
        #expect(events.allSatisfy { $0.tags["source"] == "metrickit" && $0.app.id == "com.example.shop" })

        var noHangDetection = Set(VigilModule.allCases)
        noHangDetection.remove(.hang)
        var second = MetricKitEventConverter.Counters()
        let withHang = converter(noHangDetection).events(fromDiagnosticPayload: try Self.fixture("xcode_simulated_macOS_13.json"),
                                                           counters: &second)
        #expect(withHang.contains { $0.type == .hang } && second.converted == 4)
    }

    @Test("the same payload converted twice gives the same event ids (a redelivered payload is one event each)")
    func stableIdentifiers() throws {
        var counters = MetricKitEventConverter.Counters()
        let data = try Self.fixture("xcode_simulated_macOS_13.json")
        let first = converter().events(fromDiagnosticPayload: data, counters: &counters).map(\.id)
        let second = converter().events(fromDiagnosticPayload: data, counters: &counters).map(\.id)
        #expect(first == second && Set(first).count == first.count)
    }

    @Test("a payload that is not MetricKit JSON is counted unreadable, never a trap")
    func unreadable() {
        var counters = MetricKitEventConverter.Counters()
        #expect(converter().events(fromDiagnosticPayload: Data("not json".utf8), counters: &counters).isEmpty)
        #expect(converter().events(fromDiagnosticPayload: Data("{}".utf8), counters: &counters).isEmpty)
        #expect(counters.unreadable == 2)
    }
}

/// The daily exit counts of a metric payload as an event: only exits no in-process handler sees.
@Suite("MetricKit exit counts to events")
struct MetricKitExitCountsTests {
    private let converter = MetricKitEventConverter(app: AppInfo(id: "com.example.shop", version: "3.2.0", build: "412"),
                                                    device: DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: "17.1", arch: "arm64"),
                                                    modules: Set(VigilModule.allCases))
    private let start = Date(timeIntervalSince1970: 1_795_900_000)

    @Test("watchdog and memory kills become one warn log with every non-zero count; crashes the handler records are not news")
    func killsBecomeAnEvent() throws {
        let counts = MetricKitExitCounts(foreground: ["normalApp": 40, "appWatchdog": 2, "badAccess": 1],
                                         background: ["memoryPressure": 5, "suspendedWithLockedFile": 1, "normalApp": 3],
                                         periodStart: start, periodEnd: start.addingTimeInterval(86_400), appVersion: "3.1.0")
        #expect(counts.unseenExits == ["foreground.appWatchdog": 2, "background.memoryPressure": 5,
                                       "background.suspendedWithLockedFile": 1])
        let event = try #require(converter.event(from: counts))
        guard case .log(let log) = event.payload else { Issue.record("not a log"); return }
        #expect(log.level == .warn)
        #expect(log.message == "MetricKit exits no handler saw: 5 background.memoryPressure, 1 background.suspendedWithLockedFile, 2 foreground.appWatchdog")
        #expect(log.attributes?["exits.foreground.appWatchdog"] == .int(2))
        #expect(log.attributes?["exits.foreground.badAccess"] == .int(1), "every non-zero count is kept as an attribute")
        #expect(log.attributes?["exits.background.normalApp"] == .int(3))
        #expect(event.app.version == "3.1.0" && event.tags["source"] == "metrickit")
        #expect(event.time == start.addingTimeInterval(86_400))
        #expect(converter.event(from: counts)?.id == event.id, "a payload delivered twice is one event")
    }

    @Test("a period with only normal exits and handled crashes gives no event")
    func nothingUnseen() {
        let counts = MetricKitExitCounts(foreground: ["normalApp": 12, "badAccess": 2, "illegalInstruction": 1, "appWatchdog": 0],
                                         background: ["normalApp": 4], periodStart: start, periodEnd: start.addingTimeInterval(86_400))
        #expect(counts.unseenExits.isEmpty)
        #expect(converter.event(from: counts) == nil)
    }
}
