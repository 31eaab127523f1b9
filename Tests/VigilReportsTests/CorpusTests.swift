import Foundation
import Testing
import VigilTestSupport
@testable import VigilReports

/// Every report in `Tests/Fixtures/corpus/` (real reports from public projects) reads, with the
/// thread, frame and image counts the files hold (counted independently with grep and a
/// JSON walk, see the expectations below).
@Suite("Corpus of public reports")
struct CorpusTests {
    static func corpusFile(_ path: String) throws -> Data {
        let url = BuildProducts.corpus.appendingPathComponent(path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TestSupportError("\(url.path) is missing: the corpus is part of the repository (Tests/Fixtures/SOURCES.md); restore it with git")
        }
        return data
    }

    struct TextExpectation: Sendable, CustomTestStringConvertible {
        var file: String
        var threads: Int
        var frames: Int
        var images: Int
        var crashedThread: Int?
        var testDescription: String { file }
    }

    static let textExpectations = [
        TextExpectation(file: "XCDYouTubeKit-54.crash", threads: 18, frames: 113, images: 244, crashedThread: 0),
        TextExpectation(file: "bruno.crash", threads: 55, frames: 452, images: 272, crashedThread: 5),
        TextExpectation(file: "handcrafted.crash", threads: 2, frames: 17, images: 5, crashedThread: 1),
        TextExpectation(file: "spaces.crash", threads: 1, frames: 17, images: 17, crashedThread: nil),
        TextExpectation(file: "xcode16.crash", threads: 0, frames: 0, images: 0, crashedThread: nil),
    ]

    @Test("every Apple text report in the corpus reads with its thread, frame and image counts", arguments: textExpectations)
    func textReports(_ expected: TextExpectation) throws {
        let data = try Self.corpusFile("apple-crash-reports/" + expected.file)
        #expect(ReportReader.detectFormat(data) == .appleText)
        let reports = try ReportReader.read(data)
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(report.format == .appleText)
        #expect(report.threads.count == expected.threads)
        #expect(report.threads.reduce(0) { $0 + $1.frames.count } == expected.frames)
        // Binary Images entries carry a UUID; images named only on frame lines
        // (`0x7fff61bc6000 + 3114` with no Binary Images entry) are added without one.
        #expect(report.images.filter { $0.uuid != nil }.count == expected.images)
        #expect(report.triggeredThread?.number == expected.crashedThread)
    }

    @Test("the iOS 13 header-only report gives process, app, device and OS")
    func xcode16Header() throws {
        let report = try #require(try ReportReader.read(Self.corpusFile("apple-crash-reports/xcode16.crash")).first)
        #expect(report.incidentID == "6156848E-344E-4D9E-84E0-87AFD0D0AE7B")
        #expect(report.process.name == "TouchCanvas")
        #expect(report.process.pid == 1052)
        #expect(report.app.bundleID == "com.example.apple-samplecode.TouchCanvas")
        #expect(report.app.version == "1")
        #expect(report.app.build == "3.0")
        #expect(report.system.deviceModel == "iPhone8,1")
        #expect(report.system.osName == "iPhone OS")
        #expect(report.system.osVersion == "13.3.1")
        #expect(report.system.osBuild == "17D50")
        #expect(report.system.cpuType == "ARM-64")
        #expect(report.process.parentName == "launchd")
        #expect(report.process.parentPID == 1)
    }

    @Test("macOS frames resolve to their images by address, with offsets from the image base")
    func macOSFrames() throws {
        let report = try #require(try ReportReader.read(Self.corpusFile("apple-crash-reports/XCDYouTubeKit-54.crash")).first)
        #expect(report.exception?.signal == "SIGSEGV")
        #expect(report.exception?.faultAddress == 0x8)
        let crashed = try #require(report.triggeredThread)
        // 1   ch.pitaya.xcdyoutubekit  0x00000001018b8cad -[XCDYouTubePlayerScript unscrambleSignature:] + 285
        let frame = crashed.frames[1]
        let image = try #require(report.image(of: frame))
        #expect(image.name == "XCDYouTubeKit")
        #expect(image.bundleID == "ch.pitaya.xcdyoutubekit")
        #expect(image.uuid == "31136917-6868-3472-B768-EB12D00E37E9")
        #expect(image.arch == "x86_64")
        #expect(frame.imageOffset == 0x1_018b_8cad - 0x1_018b_6000)
        #expect(frame.symbol == "-[XCDYouTubePlayerScript unscrambleSignature:]")
        #expect(frame.symbolOffset == 285)
        #expect(report.address(of: frame) == 0x1_018b_8cad)
        #expect(crashed.register("rip") == 0x7fff_99d8_9d4b)
        let main = try #require(report.images.first)
        #expect(main.origin == .app)
        #expect(report.images.first(where: { $0.name == "JavaScriptCore" })?.origin == .system)
    }

    @Test("hand-made report: thread names, symbols with source lines, application specific lines")
    func handcrafted() throws {
        let report = try #require(try ReportReader.read(Self.corpusFile("apple-crash-reports/handcrafted.crash")).first)
        let crashed = try #require(report.triggeredThread)
        #expect(crashed.number == 1)
        #expect(crashed.name == "Test Thread Name")
        let main = report.threads[0]
        #expect(main.frames[13].symbol == "main")
        #expect(main.frames[13].sourceFile == "main.m")
        #expect(main.frames[13].sourceLine == 16)
        #expect(main.frames[11].symbol == "a_function_here")
        #expect(main.frames[11].symbolOffset == 64)
        #expect(report.applicationSpecificInfo == ["objc_msgSend() selector name: respondsToSelector:", "more information here"])
        #expect(crashed.register("rip") == 0x1_090a_0132)
        // Five images appear only on frame lines, with their load address: they are added.
        let added = report.images.filter { $0.uuid == nil }.map(\.name)
        #expect(Set(added) == ["libsystem_kernel.dylib", "CoreFoundation", "HIToolbox", "AppKit", "libsystem_pthread.dylib"])
        let kernelFrame = main.frames[0]
        #expect(report.image(of: kernelFrame)?.base == 0x7fff_61bc_6000)
        #expect(kernelFrame.imageOffset == 3114)
        #expect(report.exception?.codesText == "SEGV_MAPERR at 0x88")
        #expect(report.exception?.faultAddress == 0x88)
    }

    @Test("an image name with spaces reads whole, and frames map into it")
    func spaces() throws {
        let report = try #require(try ReportReader.read(Self.corpusFile("apple-crash-reports/spaces.crash")).first)
        let image = try #require(report.images.first)
        #expect(image.name == "App Namespace")
        #expect(image.arch == "arm64")
        #expect(image.uuid == "DEBEFF4E-2653-4F38-E59B-C9DE7B8DAADE")
        let frame = report.threads[0].frames[0]
        #expect(frame.imageIndex == 0)
        #expect(frame.imageOffset == 1_363_568)
    }

    struct MetricKitExpectation: Sendable, CustomTestStringConvertible {
        var file: String
        var kind: ReportKind
        var occurrence: Int
        var stacks: Int
        var nodes: Int
        var images: Int
        var attributed: Int?
        var testDescription: String { "\(file) \(kind.rawValue) #\(occurrence)" }
    }

    static let metricKitExpectations: [MetricKitExpectation] = [
        .init(file: "ios_uncaugh_exception_payload.json", kind: .crash, occurrence: 0, stacks: 10, nodes: 50, images: 9, attributed: 0),
        .init(file: "real_report.json", kind: .crash, occurrence: 0, stacks: 10, nodes: 51, images: 10, attributed: 0),
        .init(file: "real_report.json", kind: .crash, occurrence: 1, stacks: 9, nodes: 49, images: 9, attributed: 0),
    ] + ["xcode_simulated.json", "xcode_simulated_macOS_12.json", "xcode_simulated_macOS_13.json"].flatMap { file in
        [ReportKind.crash, .hang, .cpuException, .diskWriteException].map { kind in
            MetricKitExpectation(file: file, kind: kind, occurrence: 0, stacks: 1, nodes: 1, images: 1,
                                 attributed: kind == .crash || kind == .hang ? 0 : nil)
        }
    } + [.init(file: "xcode_simulated_macOS_13.json", kind: .launch, occurrence: 0, stacks: 1, nodes: 1, images: 1, attributed: 0)]

    @Test("every MetricKit diagnostic in the corpus reads with its stack, frame and image counts", arguments: metricKitExpectations)
    func metricKit(_ expected: MetricKitExpectation) throws {
        let data = try Self.corpusFile("metrickit/" + expected.file)
        #expect(ReportReader.detectFormat(data) == .metricKit)
        let reports = try ReportReader.read(data).filter { $0.kind == expected.kind }
        let report = try #require(reports.count > expected.occurrence ? reports[expected.occurrence] : nil)
        #expect(report.format == .metricKit)
        #expect(report.threads.count == expected.stacks)
        // Every tree here is a chain: one sample per stack, so the nodes are the frames.
        #expect(report.threads.reduce(0) { $0 + $1.frames.count } == expected.nodes)
        #expect(report.threads.allSatisfy { $0.samples?.count == 1 })
        #expect(report.images.count == expected.images)
        #expect(report.triggeredThreadIndex == expected.attributed)
        #expect(!report.isPartial, "\(report.problems)")
    }

    @Test("MetricKit counts: a payload gives one report per diagnostic")
    func metricKitReportCounts() throws {
        #expect(try ReportReader.read(Self.corpusFile("metrickit/real_report.json")).count == 2)
        #expect(try ReportReader.read(Self.corpusFile("metrickit/xcode_simulated.json")).count == 4)
        #expect(try ReportReader.read(Self.corpusFile("metrickit/xcode_simulated_macOS_13.json")).count == 5)
    }

    @Test("real iOS 14 crash: offsetIntoBinaryTextSegment is the load address, offsets are address minus it")
    func metricKitLoadAddressQuirk() throws {
        let reports = try ReportReader.read(Self.corpusFile("metrickit/real_report.json"))
        let report = try #require(reports.last)
        #expect(report.exception?.type == "EXC_BAD_ACCESS")
        #expect(report.exception?.signal == "SIGSEGV")
        let top = try #require(report.triggeredThread?.frames.first)
        let image = try #require(report.image(of: top))
        #expect(image.name == "MetricKitTest")
        #expect(image.base == 4_303_978_496)
        #expect(top.imageOffset == 4_304_003_120 - 4_303_978_496)
        #expect(report.address(of: top) == 4_304_003_120)
        #expect(image.uuid == "444F912B-06E7-395E-9E6E-D947B07401AC")
        #expect(report.termination?.namespace == "SIGNAL")
        #expect(report.termination?.code == 0xb)
        let first = try #require(reports.first)
        #expect(first.exception?.type == "EXC_BREAKPOINT")
        #expect(first.exception?.signal == "SIGTRAP")
    }

    @Test("MetricKit metadata: hang duration, CPU time, disk writes, launch duration")
    func metricKitMetadata() throws {
        let reports = try ReportReader.read(Self.corpusFile("metrickit/xcode_simulated_macOS_13.json"))
        #expect(reports.first(where: { $0.kind == .hang })?.hang?.durationMs == 20_000)
        #expect(reports.first(where: { $0.kind == .cpuException })?.resource?.cpuTimeSeconds == 20)
        #expect(reports.first(where: { $0.kind == .diskWriteException })?.resource?.bytesWritten == 2000)
        #expect(reports.first(where: { $0.kind == .launch })?.resource?.launchDurationMs == 20_000)
        let crash = try #require(reports.first(where: { $0.kind == .crash }))
        #expect(crash.app.bundleID == "com.chimehq.Edit")
        #expect(crash.system.osName == "macOS")
        #expect(crash.system.osVersion == "13.0")
        #expect(crash.system.osBuild == "22A5358e")
        #expect(crash.system.architecture == "arm64e")
        #expect(crash.system.deviceModel == "MacBookPro18,3")
    }
}
