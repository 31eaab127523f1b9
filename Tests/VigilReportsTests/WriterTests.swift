import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilReports

/// Writing a report in each format and reading it back keeps what the format can hold.
@Suite("Writers and conversion")
struct WriterTests {
    static let sources = [
        "fixture:watchdog-icu-scene-create.ips", "fixture:watchdog-icu-scene-create.crash", "fixture:objc-exception.ips",
        "fixture:swift-force-unwrap.ips", "fixture:stack-overflow.crash", "fixture:deadlock.crash",
        "corpus:apple-crash-reports/XCDYouTubeKit-54.crash", "corpus:apple-crash-reports/bruno.crash",
        "corpus:apple-crash-reports/handcrafted.crash", "corpus:metrickit/real_report.json", "corpus:metrickit/xcode_simulated.json",
    ]

    static func load(_ source: String) throws -> [CrashReport] {
        if source.hasPrefix("fixture:") { return try ReportReader.read(try Fixture.data(String(source.dropFirst(8)))) }
        return try ReportReader.read(try CorpusTests.corpusFile(String(source.dropFirst(7))))
    }

    /// A frame as every format can keep it: the image's UUID (or name) and the absolute address.
    static func frameKeys(_ report: CrashReport, _ frames: [StackFrame]) -> [String] {
        frames.filter { !$0.isInlined }.map { frame in
            let image = report.image(of: frame)
            return "\(image?.uuid ?? image?.name ?? "-")@\(String(report.address(of: frame), radix: 16))"
        }
    }

    @Test("every report converts to every format and reads back with the same threads, frames and facts",
          arguments: sources, [ReportFormat.ips, .appleText, .metricKit, .vigil])
    func roundTrip(source: String, format: ReportFormat) throws {
        for original in try Self.load(source) {
            if format == .vigil, [.cpuException, .diskWriteException, .launch].contains(original.kind) {
                #expect(throws: ReportError.self) { _ = try ReportWriter.write(original, as: format) }
                continue
            }
            let written = try ReportWriter.write(original, as: format)
            #expect(ReportReader.detectFormat(Data(written.utf8)) == format, "\(source) as \(format)")
            let copy = try #require(try ReportReader.read(Data(written.utf8)).first, "\(source) as \(format)")
            #expect(copy.format == format)
            #expect(copy.kind == original.kind)
            #expect(copy.threads.count == original.threads.count, "\(source) as \(format)")
            for (a, b) in zip(original.threads, copy.threads) {
                let expected = Self.frameKeys(original, format == .metricKit ? Array(a.frames.prefix(MetricKitWriter.maxDepth)) : a.frames)
                #expect(Self.frameKeys(copy, b.frames) == expected, "\(source) as \(format), thread \(a.number)")
                if format == .ips || format == .appleText {
                    #expect(b.frames.filter { !$0.isInlined }.map(\.symbol) == a.frames.filter { !$0.isInlined }.map(\.symbol))
                    #expect(b.crashed == a.crashed)
                }
            }
            #expect(copy.triggeredThreadIndex == original.triggeredThreadIndex, "\(source) as \(format)")
            #expect(copy.exception?.signal == original.exception?.signal, "\(source) as \(format)")
            if format != .vigil || original.exception?.type == "EXC_BAD_ACCESS" {
                #expect(copy.exception?.type == original.exception?.type, "\(source) as \(format)")
            }
            #expect(copy.termination?.code == original.termination?.code, "\(source) as \(format)")
            #expect(copy.app.version == original.app.version)
            #expect(copy.app.build == original.app.build)
            #expect(copy.system.osVersion == original.system.osVersion)
            if format != .metricKit { #expect(copy.languageException?.reason == original.languageException?.reason) }
            // The diagnosis survives the conversion (MetricKit and events keep no symbols).
            if format == .ips || format == .appleText {
                #expect(CrashClassifier().classify(copy).title == CrashClassifier().classify(original).title, "\(source) as \(format)")
            }
        }
    }

    @Test("a deep stack written as MetricKit grows with the frame count, not its square")
    func deepMetricKitStackStaysLinear() throws {
        let report = try #require(try Self.load("fixture:stack-overflow.crash").first)
        let frames = report.threads.map { min($0.frames.count, MetricKitWriter.maxDepth) }.reduce(0, +)
        #expect(report.threads.contains { $0.frames.count >= 500 }, "the fixture has a deep stack")
        let written = try ReportWriter.write(report, as: .metricKit)
        // One frame is a few hundred bytes of JSON; indenting each nesting level would add
        // depth × 2 spaces to every line of every frame (megabytes here).
        #expect(written.utf8.count < 400 * frames + 4096, "\(written.utf8.count) bytes for \(frames) frames")
    }

    @Test("a report written in its own format, unchanged, is byte-for-byte the same text report")
    func textIdentity() throws {
        let data = try Fixture.data("watchdog-icu-scene-create.crash")
        let report = try AppleTextReader.read(data)
        #expect(AppleTextWriter.write(report) == String(decoding: data, as: UTF8.self))
    }

    @Test("an .ips written back unchanged keeps every field Apple wrote, including unknown ones")
    func ipsKeepsUnknownFields() throws {
        let report = try Fixture.report("watchdog-icu-scene-create.ips")
        let written = IPSWriter.write(report)
        for field in ["\"storeInfo\"", "\"codeSigningTeamID\" : \"ABCDE12345\"", "\"throttleTimeout\"", "\"procStartAbsTime\"",
                      "\\/private\\/var\\/containers"] {
            #expect(written.contains(field), "\(field)")
        }
        let again = try IPSReader.read(Data(written.utf8))
        #expect(again.threads == report.threads)
        #expect(again.images == report.images)
    }

    @Test("jetsam and stackshot-style hang reports read, and jetsam writes back as jetsam")
    func jetsamAndStackshot() throws {
        let jetsam = try Fixture.report("jetsam-per-process-limit.ips")
        #expect(jetsam.kind == .jetsam)
        #expect(jetsam.jetsam?.pageSize == 16384)
        #expect(jetsam.jetsam?.processCount == 3)
        #expect(jetsam.jetsam?.killed.first?.residentPages == 92802)
        #expect(jetsam.process.name == "Shopfront")
        let copy = try IPSReader.read(Data(IPSWriter.write(jetsam).utf8))
        #expect(copy.kind == .jetsam)
        #expect(copy.jetsam?.killed == jetsam.jetsam?.killed)

        let stackshot = """
            {"bug_type":"288","timestamp":"2026-10-07 10:00:00.00 +0200","os_version":"iPhone OS 17.6.1 (21G93)","name":"Shop"}
            {"processByPid":{"0":{"pid":0,"procname":"kernel_task","threadById":{}},"321":{"pid":321,"procname":"Shop","threadById":{
              "902":{"id":902,"name":"worker","userFrames":[[1,4096],[0,2048]]},
              "900":{"id":900,"dispatch_queue_label":"com.apple.main-thread","userFrames":[[1,5916],[0,188724],[0,40196]]}}}},
             "binaryImages":[["82D13D98-219E-3040-B62A-07A297007A7C",4337434624,"P","Shop"],["9b8c2a51-6e2f-3c8a-b1d4-7f0e3a2c5d61",8214683648,"P","libsystem_kernel.dylib"]]}
            """
        let hang = try IPSReader.read(Data(stackshot.utf8))
        #expect(hang.kind == .hang)
        #expect(hang.process.pid == 321)
        #expect(hang.threads.count == 2)
        #expect(hang.threads[0].isMainThread)
        #expect(hang.threads[0].frames.map(\.imageOffset) == [5916, 188724, 40196])
        #expect(hang.images[0].uuid == "82D13D98-219E-3040-B62A-07A297007A7C")
    }

    @Test("older layouts: a JSON metadata line over a text body, and Xcode's translated report with the full report below")
    func wrappedLayouts() throws {
        let text = String(decoding: try Fixture.data("deadlock.crash"), as: UTF8.self)
        let wrapped = #"{"app_name":"Shopfront","bug_type":"109","os_version":"iPhone OS 14.8 (18H17)","name":"Shopfront"}"# + "\n" + text
        let legacy = try #require(try ReportReader.read(Data(wrapped.utf8)).first)
        #expect(legacy.format == .ips)
        #expect(legacy.bugType == "109")
        #expect(legacy.threads.count == 3)

        let translated = "-------------------------------------\nTranslated Report (Full Report Below)\n-------------------------------------\n\n"
            + String(decoding: try Fixture.data("watchdog-icu-scene-create.crash"), as: UTF8.self)
            + "\n-----------\nFull Report\n-----------\n\n" + String(decoding: try Fixture.data("watchdog-icu-scene-create.ips"), as: UTF8.self)
        #expect(ReportReader.detectFormat(Data(translated.utf8)) == .ips)
        let full = try #require(try ReportReader.read(Data(translated.utf8)).first)
        #expect(full.format == .ips)
        #expect(full.threads.count == 5)
        #expect(full.images.count == 12)
    }

    @Test("a Vigil crash event reads with frames mapped into its images, and writes back the same event")
    func vigilEvent() throws {
        let event = Event(
            id: UUID(uuidString: "8E1B2C3D-4E5F-4061-8273-94A5B6C7D8E9")!, time: Date(timeIntervalSince1970: 1_790_000_000.5),
            session: UUID(uuidString: "1A2B3C4D-5E6F-4071-8293-A4B5C6D7E8F9")!,
            app: AppInfo(id: "com.example.shop", version: "3.2.0", build: "412"),
            device: DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: "18.1", arch: "arm64"),
            images: [ImageInfo(name: "Shop", id: "82D13D98-219E-3040-B62A-07A297007A7C", arch: "arm64",
                               loadAddress: Address(0x1_0223_0000), size: 0x8000, path: "/var/containers/Bundle/Application/X/Shop.app/Shop")],
            payload: .crash(CrashPayload(signal: "SIGSEGV", code: "SEGV_MAPERR", faultAddress: Address(0x10),
                                         threads: [CrashThread(crashed: true, name: "main", frames: [Address(0x1_0223_4a10), Address(0x1_0223_1000), Address(0x7fff_0000)])],
                                         registers: ["pc": Address(0x1_0223_4a10), "sp": Address(0x16d_0000)])))
        let data = try EventJSON.encode(event)
        #expect(ReportReader.detectFormat(data) == .vigil)
        let report = try #require(try ReportReader.read(data).first)
        #expect(report.format == .vigil)
        #expect(report.threads[0].frames[0].imageIndex == 0)
        #expect(report.threads[0].frames[0].imageOffset == 0x4a10)
        #expect(report.threads[0].frames[2].imageIndex == nil)
        #expect(report.exception?.faultAddress == 0x10)
        #expect(CrashClassifier().classify(report).category == .nullPointer)
        let back = try VigilEventWriter.event(from: report)
        #expect(back == event)
    }
}
