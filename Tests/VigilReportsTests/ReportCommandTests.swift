import Foundation
import Testing
import VigilTestSupport
@testable import VigilReports

/// `vigil report` as a real process: analyze, convert and symbolicate.
@Suite("vigil report CLI")
struct ReportCommandTests {
    static func vigil(_ arguments: [String]) throws -> ChildProcess.Outcome {
        try ChildProcess.run(try BuildProducts.executable("vigil"), ["report"] + arguments, timeout: 60)
    }

    @Test("analyze prints the diagnosis, fingerprint, evidence and advice; --json gives ReportAnalysis")
    func analyze() throws {
        let path = Fixture.directory.appendingPathComponent("watchdog-icu-scene-create.ips").path
        let text = try Self.vigil(["analyze", path])
        #expect(text.exitStatus == 0, "\(text)")
        #expect(text.standardOutput.contains("Category:     watchdog"))
        #expect(text.standardOutput.contains("the allowance was 3.43 s"))
        #expect(text.standardOutput.contains("Advice:"))
        let json = try Self.vigil(["analyze", path, "--json"])
        #expect(json.exitStatus == 0, "\(json)")
        let analysis = try JSONDecoder().decode(ReportAnalysis.self, from: Data(json.standardOutput.utf8))
        #expect(analysis.diagnosis.category == .watchdog)
        #expect(analysis.fingerprint.value.count == 32)
    }

    @Test("convert writes each format to a file that reads back; bad arguments exit 64")
    func convert() throws {
        let directory = try TemporaryDirectory(prefix: "report-cli")
        let source = Fixture.directory.appendingPathComponent("objc-exception.ips").path
        for (target, format) in [("text", ReportFormat.appleText), ("vigil", .vigil), ("metrickit", .metricKit), ("ips", .ips)] {
            let output = directory.file("out.\(target)").path
            let outcome = try Self.vigil(["convert", source, "--to", target, "-o", output])
            #expect(outcome.exitStatus == 0, "\(outcome)")
            let data = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(ReportReader.detectFormat(data) == format)
            #expect(try ReportReader.read(data).first?.threads.count == 2)
        }
        #expect(try Self.vigil(["convert", source, "--to", "pdf"]).exitStatus == 64)
        #expect(try Self.vigil(["convert", source]).exitStatus == 64)
        #expect(try Self.vigil(["frobnicate"]).exitStatus == 64)
        let missing = try Self.vigil(["analyze", directory.file("missing.ips").path])
        #expect(missing.exitStatus == 1)
        #expect(missing.standardError.contains("cannot read"))
    }

    @Test("symbolicate keeps the format and lists images without a dSYM on standard error")
    func symbolicate() throws {
        let binary = SymbolicationTests.binaries[0]
        let setup = try SymbolicationTests.setup(binary)
        let directory = try TemporaryDirectory(prefix: "report-cli")
        let report = directory.file("fixture.crash")
        try SymbolicationTests.textReport(binary, setup).write(to: report, atomically: true, encoding: .utf8)
        let dSYM = SymbolicationTests.fixtures.appendingPathComponent(binary.dSYM).path
        let outcome = try Self.vigil(["symbolicate", report.path, "--dsym", dSYM])
        #expect(outcome.exitStatus == 0, "\(outcome)")
        #expect(outcome.standardError.contains("symbolicated 160 of 160 frames"))
        let symbolicated = try AppleTextReader.read(Data(outcome.standardOutput.utf8))
        #expect(symbolicated.threads.allSatisfy { $0.frames.allSatisfy { $0.symbol != nil } })
        let without = try Self.vigil(["symbolicate", report.path, "--dsym", directory.url.path])
        #expect(without.exitStatus == 0)
        #expect(without.standardError.contains("missing app images"))
        #expect(without.standardError.contains(setup.uuid))
        #expect(try Self.vigil(["symbolicate", report.path]).exitStatus == 64)
    }

    @Test("a file with a KSCrash recrash: analyze takes the original and says a further report is there; --all analyzes both")
    func analyzeSeveralReports() throws {
        let path = Fixture.directory.appendingPathComponent("kscrash-recrash.json").path
        let first = try Self.vigil(["analyze", path, "--json"])
        #expect(first.exitStatus == 0, "\(first)")
        let one = try JSONDecoder().decode(ReportAnalysis.self, from: Data(first.standardOutput.utf8))
        #expect(one.diagnosis.category == .nullPointer)
        #expect(first.standardError.contains("1 further report in the file (a crash of the crash reporter's own handler)"), "\(first)")
        #expect(first.standardError.contains("--all"))
        let all = try Self.vigil(["analyze", path, "--json", "--all"])
        #expect(all.exitStatus == 0, "\(all)")
        let both = try JSONDecoder().decode([ReportAnalysis].self, from: Data(all.standardOutput.utf8))
        #expect(both.map(\.diagnosis.category) == [.nullPointer, .protectionViolation])
        let text = try Self.vigil(["analyze", path, "--all"])
        #expect(text.standardOutput.contains("the crash reporter's own handler crashed"))
    }

    @Test("a KSCrash JSON report converts to every format; what the target cannot hold is listed on standard error")
    func convertKSCrash() throws {
        let directory = try TemporaryDirectory(prefix: "report-cli-kscrash")
        let source = Fixture.directory.appendingPathComponent("kscrash-nsexception.json").path
        for (target, format) in [("text", ReportFormat.appleText), ("vigil", .vigil), ("metrickit", .metricKit), ("ips", .ips)] {
            let output = directory.file("out.\(target)").path
            let outcome = try Self.vigil(["convert", source, "--to", target, "-o", output])
            #expect(outcome.exitStatus == 0, "\(outcome)")
            let data = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(ReportReader.detectFormat(data) == format)
            let back = try #require(try ReportReader.read(data).first)
            #expect(ReportAnalysis(report: back).diagnosis.category == .uncaughtException)
            if format == .metricKit { #expect(outcome.standardError.contains("metricKit cannot hold: "), "\(outcome)") }
            if format == .ips { #expect(!outcome.standardError.contains("cannot hold"), "\(outcome)") }
        }
    }
}
