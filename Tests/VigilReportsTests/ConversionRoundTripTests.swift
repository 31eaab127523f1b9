import Foundation
import Testing
@testable import VigilReports

/// The same crash in every format gets the same diagnosis and fingerprint: every reader's
/// output is written by every writer and read back.
@Suite("Conversion round trips")
struct ConversionRoundTripTests {
    /// One report per reader: `.ips`, Apple text (iOS and macOS), KSCrash text and JSON, and the
    /// MetricKit and Vigil forms of a crash, read from what their writers produced.
    static let sources: [String] = [
        "ips:objc-exception.ips", "ips:swift-force-unwrap.ips", "text:macos-uncaught-exception.crash",
        "text:kscrash-recrash.crash", "text:deadlock.crash", "kscrash:kscrash-nsexception.json", "kscrash:kscrash-recrash.json",
        "metrickit:objc-exception.ips", "metrickit:kscrash-recrash.crash", "vigil:objc-exception.ips", "vigil:kscrash-recrash.json",
        "builder:protection-failure",
    ]

    static func source(_ name: String) throws -> CrashReport {
        let parts = name.split(separator: ":", maxSplits: 1).map(String.init)
        if parts[0] == "builder" {
            var builder = ReportBuilder(format: .appleText)
            builder.exception("EXC_BAD_ACCESS", "SIGBUS", subtype: "KERN_PROTECTION_FAILURE at 0x0000000104d3c000")
            builder.thread(crashed: true, name: "render", [.app("Shop.Canvas.draw(_:)"), .app("Shop.Canvas.flush()")] + ReportBuilder.mainTail)
            builder.thread(queue: "com.apple.main-thread", ReportBuilder.idleMain)
            return builder.report
        }
        let original = try #require(try ReportReader.read(try Fixture.data(parts[1])).first)
        switch parts[0] {
        case "metrickit": return try #require(try ReportReader.read(Data(MetricKitWriter.write(original).utf8)).first)
        case "vigil": return try #require(try ReportReader.read(Data(try VigilEventWriter.write(original).utf8)).first)
        default: return original
        }
    }

    @Test("every reader's report, written in every format and read back, keeps category, fingerprint, fault address and reason",
          arguments: sources, [ReportFormat.ips, .appleText, .metricKit, .vigil])
    func roundTrip(source name: String, format: ReportFormat) throws {
        let report = try Self.source(name)
        let before = ReportAnalysis(report: report)
        let written = try ReportWriter.write(report, as: format)
        let data = Data(written.utf8)
        #expect(ReportReader.detectFormat(data) == format)
        let back = try #require(try ReportReader.read(data).first)
        let after = ReportAnalysis(report: back)
        #expect(after.diagnosis.category == before.diagnosis.category, "\(name) → \(format): \(after.diagnosis.title)")
        #expect(after.fingerprint == before.fingerprint, "\(name) → \(format)")
        #expect(back.exception?.faultAddress == report.exception?.faultAddress, "\(name) → \(format)")
        #expect(back.languageException?.reason == report.languageException?.reason, "\(name) → \(format)")
        #expect(back.triggeredThread?.frames.count == report.triggeredThread?.frames.count, "\(name) → \(format)")
        #expect(back.app.bundleID == report.app.bundleID, "\(name) → \(format)")
    }

    @Test("text and .ips keep exception type, codes, thread names and the crashed thread; Identifier is the bundle id",
          arguments: [ReportFormat.ips, .appleText])
    func fullFormatsKeepDetails(format: ReportFormat) throws {
        let report = try #require(try ReportReader.read(try Fixture.data("kscrash-nsexception.json")).first)
        let back = try #require(try ReportReader.read(Data(try ReportWriter.write(report, as: format).utf8)).first)
        #expect(back.exception?.type == "EXC_CRASH" && back.exception?.signal == "SIGABRT")
        #expect(back.languageException?.name == "NSRangeException")
        #expect(back.triggeredThreadIndex == report.triggeredThreadIndex)
        #expect(back.threads.map(\.name) == report.threads.map(\.name))
        #expect(back.threads.map(\.queue) == report.threads.map(\.queue))
        #expect(back.app.bundleID == "com.example.parcel")
        if format == .appleText {
            let text = try ReportWriter.write(report, as: format)
            #expect(text.contains("Identifier:          com.example.parcel"))
        }
    }

    @Test("what MetricKit and Vigil events cannot hold is listed; .ips holds everything")
    func unrepresentableIsListed() throws {
        let report = try #require(try ReportReader.read(try Fixture.data("kscrash-nsexception.json")).first)
        #expect(ReportConversion.unrepresentable(report, in: .ips).isEmpty)
        let metricKit = ReportConversion.unrepresentable(report, in: .metricKit)
        #expect(metricKit.contains { $0.contains("image paths") })
        #expect(metricKit.contains { $0.contains("registers") })
        #expect(!ReportConversion.unrepresentable(report, in: .vigil).isEmpty)
    }

    @Test("a Vigil event written from a symbolicated report keeps the names in payload.reportDetails and stays a valid event")
    func vigilDetailsStayAnEvent() throws {
        let report = try #require(try ReportReader.read(try Fixture.data("macos-uncaught-exception.crash")).first)
        let text = try VigilEventWriter.write(report)
        #expect(text.contains("\"reportDetails\""))
        let back = try #require(try ReportReader.read(Data(text.utf8)).first)
        #expect(back.lastExceptionBacktrace?.count == report.lastExceptionBacktrace?.count)
        #expect(back.lastExceptionBacktrace?[3].symbol == "-[LedgerTableController rowForEntry:]")
        #expect(back.threads[0].queue == "com.apple.main-thread")
    }
}
