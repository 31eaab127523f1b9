import Foundation
import Testing
@testable import Vigil
import VigilCore
import VigilRuntime
import VigilStore
import VigilTestSupport

/// A sink that keeps what it gets and can refuse to confirm storage.
final class CollectingSink: DurableEventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Event] = []
    var confirms = true

    func emit(_ event: Event) {
        lock.lock(); stored.append(event); lock.unlock()
    }

    func emitDurably(_ event: Event) -> Bool {
        emit(event)
        return confirms
    }

    var events: [Event] {
        lock.lock(); defer { lock.unlock() }
        return stored
    }
}

@Suite("Recovery of raw crash reports at start")
struct CrashReportRecoveryTests {
    let session = UUID()

    func metadata(session: UUID? = nil) throws -> Data {
        try CrashSessionMetadata(session: session ?? self.session, app: AppInfo(id: "com.example.shop", version: "3.2.0", build: "412"),
                                 device: DeviceInfo(model: "test", os: "Linux", osVersion: "6", arch: "x86_64"),
                                 context: EventContext(page: "Checkout", appState: "foreground"), tags: ["arm": "b"],
                                 started: Date(timeIntervalSince1970: 1_795_000_000)).encoded()
    }

    func recover(_ directory: TemporaryDirectory, sink: any EventSink, counters: inout CrashRecoveryCounters)
        -> [CrashReportRecovery.Outcome] {
        CrashReportRecovery(directory: directory.file("crashes"), hangMarker: HangMarkerFile(directory: directory.url))
            .recover(into: sink, sanitizer: EventSanitizer(), counters: &counters)
    }

    func crashDirectory(_ directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("crashes")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A fresh directory whose `crashes/` holds one valid raw report of this session.
    func directoryWithOneCrash() throws -> (directory: TemporaryDirectory, crashes: URL) {
        let directory = try TemporaryDirectory(prefix: "recovery")
        let crashes = try crashDirectory(directory)
        var synthetic = SyntheticCrashReport()
        synthetic.metadata = try metadata()
        try synthetic.bytes().write(to: crashes.appendingPathComponent("a.vigilcrash"))
        return (directory, crashes)
    }

    /// Leaves the marker of a 2.5 s hang of `session` in `directory`, as a hang that was still
    /// going on when the process died does.
    func writeHangMarker(in directory: TemporaryDirectory, session: UUID) -> HangMarkerFile {
        let marker = HangMarkerFile(directory: directory.url)
        let hang = HangMarker(start: Date(), lastSeen: Date(), durationMs: 2500, thresholdMs: 2000, runLoopActivity: "beforeSources",
                              pastFatalThreshold: false, stacks: [], hotStack: nil, sampleCount: 0)
        marker.write(.init(session: session, marker: hang, images: [], context: EventContext()))
        return marker
    }

    @Test("valid, corrupt, truncated, foreign and empty files: one crash event, the rest discarded by reason, every file removed")
    func mixedDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "recovery")
        let crashes = try crashDirectory(directory)
        var synthetic = SyntheticCrashReport()
        synthetic.metadata = try metadata()
        let valid = try synthetic.bytes()
        try valid.write(to: crashes.appendingPathComponent("a.vigilcrash"))
        var corrupt = valid
        corrupt[40] ^= 0xFF
        try corrupt.write(to: crashes.appendingPathComponent("b.vigilcrash"))
        try valid.prefix(valid.count / 2).write(to: crashes.appendingPathComponent("c.vigilcrash"))
        try Data("not a crash report\n".utf8).write(to: crashes.appendingPathComponent("d.txt"))
        try Data().write(to: crashes.appendingPathComponent("e.vigilcrash"))
        var badMetadata = SyntheticCrashReport()
        badMetadata.metadata = Data("{not json".utf8)
        try badMetadata.bytes().write(to: crashes.appendingPathComponent("f.vigilcrash"))

        let sink = CollectingSink()
        var counters = CrashRecoveryCounters()
        let outcomes = recover(directory, sink: sink, counters: &counters)
        #expect(outcomes.count == 6)
        #expect(counters.recovered == 1)
        #expect(counters.cleanRuns == 1)
        #expect(counters.discarded == [.checksumMismatch: 1, .truncated: 1, .foreign: 1, .malformed: 1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: crashes.path).isEmpty)

        try #require(sink.events.count == 1)
        let event = sink.events[0]
        #expect(event.session == session)
        #expect(event.app.id == "com.example.shop")
        #expect(event.context.page == "Checkout")
        #expect(event.tags == ["arm": "b"])
        #expect(event.time == Date(timeIntervalSince1970: 1_795_000_000.5))
        guard case .crash(let crash) = event.payload else { Issue.record("not a crash"); return }
        #expect(crash.signal == "SIGSEGV" && crash.code == "SEGV_MAPERR" && crash.faultAddress == Address(0x10))
        #expect(crash.exception == CrashException(type: "Swift runtime failure", reason: "Fatal error: synthetic"))
        #expect(crash.threads.map(\.crashed) == [true, false])
        #expect(crash.threads.map(\.name) == ["main", "worker"])
        #expect(crash.registers?["rip"] == Address(0x5555_0000_1234))
        #expect(crash.fatalHang == false)
        // Only the images the stacks point into: the app and libc, not the unreferenced plugin.
        #expect(event.images?.map(\.name) == ["Shop", "libc.so.6"])
        #expect(event.images?.first?.id == "abcdef01")
    }

    @Test("a report held by a live process (its flock) is left alone")
    func liveFileSkipped() throws {
        let directory = try TemporaryDirectory(prefix: "recovery")
        let crashes = try crashDirectory(directory)
        let url = crashes.appendingPathComponent("live.vigilcrash")
        try Data().write(to: url)
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        var counters = CrashRecoveryCounters()
        _ = recover(directory, sink: CollectingSink(), counters: &counters)
        #expect(counters.skippedLive == 1)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test("a hang marker of the session that crashed becomes the crash's fatalHang flag, not a second event")
    func hangMarkerMerged() throws {
        let (directory, _) = try directoryWithOneCrash()
        let marker = writeHangMarker(in: directory, session: session)
        let sink = CollectingSink()
        var counters = CrashRecoveryCounters()
        _ = recover(directory, sink: sink, counters: &counters)
        guard case .crash(let crash) = sink.events.first?.payload else { Issue.record("no crash"); return }
        #expect(crash.fatalHang)
        #expect(counters.hangMarkersMerged == 1)
        #expect(marker.leftover() == nil)
    }

    @Test("a marker of another session is left for the fatal-hang report")
    func otherSessionMarkerKept() throws {
        let (directory, _) = try directoryWithOneCrash()
        let marker = writeHangMarker(in: directory, session: UUID())
        var counters = CrashRecoveryCounters()
        _ = recover(directory, sink: CollectingSink(), counters: &counters)
        #expect(counters.hangMarkersMerged == 0)
        #expect(marker.leftover() != nil)
    }

    @Test("when the sink does not confirm storage the report is kept, and the next launch delivers the same event id")
    func deferredUntilStored() throws {
        let (directory, crashes) = try directoryWithOneCrash()
        let refusing = CollectingSink()
        refusing.confirms = false
        var counters = CrashRecoveryCounters()
        _ = recover(directory, sink: refusing, counters: &counters)
        #expect(counters.deferred == 1 && counters.recovered == 0)
        #expect(FileManager.default.fileExists(atPath: crashes.appendingPathComponent("a.vigilcrash").path))

        let working = CollectingSink()
        var second = CrashRecoveryCounters()
        _ = recover(directory, sink: working, counters: &second)
        #expect(second.recovered == 1)
        #expect(working.events.first?.id == refusing.events.first?.id, "a re-delivered crash is the same event")
    }

    @Test("through a sink that cannot tell, the flush decides: a failed flush keeps the report for the next launch")
    func flushDecides() throws {
        let (directory, crashes) = try directoryWithOneCrash()
        let plain = PlainSink()
        var counters = CrashRecoveryCounters()
        _ = CrashReportRecovery(directory: crashes, hangMarker: HangMarkerFile(directory: directory.url))
            .recover(into: plain, flush: { false }, sanitizer: EventSanitizer(), counters: &counters)
        #expect(counters.deferred == 1 && plain.count == 1)
        _ = CrashReportRecovery(directory: crashes, hangMarker: HangMarkerFile(directory: directory.url))
            .recover(into: plain, flush: { true }, sanitizer: EventSanitizer(), counters: &counters)
        #expect(counters.recovered == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: crashes.path).isEmpty)
    }

    @Test("into the durable store, a crash is written and fsynced before its raw report is deleted")
    func intoEventStore() throws {
        let (directory, crashes) = try directoryWithOneCrash()
        let store = EventStore(directory: directory.file("events"))
        defer { store.close() }
        var counters = CrashRecoveryCounters()
        _ = recover(directory, sink: store, counters: &counters)
        #expect(counters.recovered == 1 && counters.deferred == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: crashes.path).isEmpty)
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory.file("events").path)
        #expect(!segments.isEmpty, "the store has the event on disk")
    }
}

/// A sink that cannot say whether an event is stored.
final class PlainSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var received = 0
    func emit(_ event: Event) { lock.lock(); received += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return received }
}

@Suite("Crash event building")
struct CrashEventBuilderTests {
    func metadata() -> CrashSessionMetadata {
        CrashSessionMetadata(session: UUID(), app: AppInfo(id: "a", version: "1", build: "1"),
                             device: DeviceInfo(model: "m", os: "Linux", osVersion: "6", arch: "x86_64"),
                             context: EventContext(), tags: [:], started: Date())
    }

    @Test("a signal sent by a process (abort's SI_TKILL) has no fault address; a fault has one")
    func faultAddressOnlyForFaults() throws {
        var synthetic = SyntheticCrashReport()
        synthetic.signal = SIGABRT
        synthetic.code = -6
        let abort = CrashEventBuilder.event(from: try RawCrashReportParser().parse(try synthetic.bytes()), metadata: metadata(), fatalHang: false)
        guard case .crash(let crash) = abort.payload else { Issue.record("not a crash"); return }
        #expect(crash.signal == "SIGABRT" && crash.code == "SI_TKILL" && crash.faultAddress == nil)
    }

    @Test("signal and code names", arguments: [
        (SIGSEGV, Int32(2), "SIGSEGV", "SEGV_ACCERR"), (SIGBUS, Int32(2), "SIGBUS", "BUS_ADRERR"),
        (SIGILL, Int32(2), "SIGILL", "ILL_ILLOPN"), (SIGFPE, Int32(1), "SIGFPE", "FPE_INTDIV"),
        (SIGTRAP, Int32(1), "SIGTRAP", "TRAP_BRKPT"), (SIGABRT, Int32(0), "SIGABRT", "SI_USER"),
        (SIGSEGV, Int32(77), "SIGSEGV", "77"),
    ])
    func names(signal: Int32, code: Int32, signalName: String, codeName: String) {
        #expect(SignalDescription.name(ofSignal: signal) == signalName)
        #expect(SignalDescription.name(ofCode: code, signal: signal) == codeName)
    }

    @Test("a frame inside a library loaded after the last snapshot is still mapped to it (by name, without a build id)")
    func lateImage() throws {
        var synthetic = SyntheticCrashReport()
        synthetic.crashedFrames = [0x7e00_0000_0100, 0x5555_0000_2000]
        let event = CrashEventBuilder.event(from: try RawCrashReportParser().parse(try synthetic.bytes()), metadata: metadata(), fatalHang: false)
        let late = try #require(event.images?.first { $0.name == "Plugin.so" })
        #expect(late.id.isEmpty && late.path == "/opt/app/Plugin.so")
    }

    @Test("an uncaught exception's throw site (exception-stack) becomes the event's exception frames and survives both JSON encoders")
    func exceptionThrowSite() throws {
        var synthetic = SyntheticCrashReport()
        synthetic.signal = SIGABRT
        synthetic.code = 0
        synthetic.message = nil
        synthetic.languageException = ("NSInvalidArgumentException", "-[Cart add:]: unrecognized selector")
        synthetic.exceptionStack = [0x5555_0000_3000, 0x5555_0000_3100, 0x7f00_0000_5000]
        let report = try RawCrashReportParser().parse(try synthetic.bytes())
        #expect(report.exceptionStack == synthetic.exceptionStack)
        let event = CrashEventBuilder.event(from: report, metadata: metadata(), fatalHang: false)
        guard case .crash(let crash) = event.payload else { Issue.record("not a crash"); return }
        #expect(crash.exception?.type == "NSInvalidArgumentException")
        #expect(crash.exception?.frames == synthetic.exceptionStack.map(Address.init))
        for data in [try EventJSON.encode(event), EventJSONWriter.encode(event)] {
            let decoded = try EventJSON.decode(data)
            guard case .crash(let back) = decoded.payload else { Issue.record("not a crash"); return }
            #expect(back.exception?.frames == crash.exception?.frames)
        }
    }

    @Test("a report without an exception-stack record has no exception frames")
    func noThrowSite() throws {
        var synthetic = SyntheticCrashReport()
        synthetic.languageException = ("std::runtime_error", "boom")
        let event = CrashEventBuilder.event(from: try RawCrashReportParser().parse(try synthetic.bytes()), metadata: metadata(), fatalHang: false)
        guard case .crash(let crash) = event.payload else { Issue.record("not a crash"); return }
        #expect(crash.exception?.type == "std::runtime_error" && crash.exception?.frames == nil)
    }

    @Test("the event id is the same for the same report and differs between reports")
    func deterministicIdentifier() throws {
        let session = UUID()
        let first = try RawCrashReportParser().parse(try SyntheticCrashReport().bytes())
        var other = SyntheticCrashReport()
        other.monotonic += 1
        let second = try RawCrashReportParser().parse(try other.bytes())
        #expect(CrashEventBuilder.eventID(report: first, session: session) == CrashEventBuilder.eventID(report: first, session: session))
        #expect(CrashEventBuilder.eventID(report: first, session: session) != CrashEventBuilder.eventID(report: second, session: session))
    }
}
