import Foundation
import Testing
@testable import VigilReports

/// Hostile and damaged input: typed errors with a line or key path, or partial reports
/// marked partial; never a trap.
@Suite("Bad input")
struct BadInputTests {
    @Test("a truncated .ips body gives a partial report with the threads read before the cut")
    func truncatedIPS() throws {
        let data = try Fixture.data("watchdog-icu-scene-create.ips")
        let text = String(decoding: data, as: UTF8.self)
        // Cut inside the fifth thread's frames.
        let cut = try #require(text.range(of: "_dispatch_lane_serial_drain"))
        let truncated = Data(text[..<cut.lowerBound].utf8)
        let report = try #require(try ReportReader.read(truncated).first)
        #expect(report.isPartial)
        #expect(report.problems.contains { $0.message.contains("truncated") })
        #expect(report.threads.count == 5)
        #expect(report.threads[0].frames.count == 24)
        #expect(report.images.isEmpty)
        #expect(report.threads[0].frames.allSatisfy { $0.imageIndex == nil })
        #expect(report.termination?.code == TerminationCode.watchdog)
        // Every cut point reads or throws a typed error; none traps.
        for length in stride(from: 0, to: data.count, by: 97) {
            do {
                _ = try ReportReader.read(data.prefix(length))
            } catch {
                // Typed by the signature; nothing more to check.
            }
        }
    }

    @Test("a malformed .ips body is an error with its line, column and key path")
    func malformedIPS() throws {
        let text = String(decoding: try Fixture.data("swift-force-unwrap.ips"), as: UTF8.self)
        let broken = text.replacingOccurrences(of: "\"pid\" : 1203", with: "\"pid\" : 12#03")
        let error = #expect(throws: ReportError.self) { _ = try ReportReader.read(Data(broken.utf8)) }
        guard case .malformedJSON(let part, let json)? = error else {
            Issue.record("wrong error \(String(describing: error))")
            return
        }
        #expect(part == "report body")
        // Line 1 is the metadata line; the body's `pid` member is on line 9 of the file.
        #expect(json.line == 9)
        #expect(json.keyPath == "pid")
        #expect(String(describing: error!).contains("line 9"))
    }

    @Test("a legacy report with sections in an unexpected order still reads")
    func outOfOrderText() throws {
        let text = String(decoding: try Fixture.data("watchdog-icu-scene-create.crash"), as: UTF8.self)
        let lines = text.components(separatedBy: "\n")
        let images = try #require(lines.firstIndex(of: "Binary Images:"))
        let header = try #require(lines.firstIndex(of: ""))
        // Binary images first, then the threads and state, then the header.
        let reordered = Array(lines[images...]) + [""] + Array(lines[(header + 1)..<images]) + [""] + Array(lines[..<header])
        let report = try AppleTextReader.read(Data(reordered.joined(separator: "\n").utf8))
        let original = try AppleTextReader.read(Data(text.utf8))
        #expect(report.threads.count == original.threads.count)
        #expect(report.images.count == original.images.count)
        #expect(report.process.name == "Shopfront")
        #expect(report.threads.map(\.frames) .map { $0.map(\.imageOffset) } == original.threads.map { $0.frames.map(\.imageOffset) })
        #expect(report.threads.map { $0.frames.map(\.imageIndex) } == original.threads.map { $0.frames.map(\.imageIndex) })
        #expect(CrashClassifier().classify(report).title == CrashClassifier().classify(original).title)
    }

    @Test("absurd numbers: out-of-range indices, huge offsets and counts are noted, not trusted")
    func absurdNumbers() throws {
        var text = String(decoding: try Fixture.data("swift-force-unwrap.ips"), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"imageOffset\":301212,\"imageIndex\":0", with: "\"imageOffset\":301212,\"imageIndex\":99999999999")
        text = text.replacingOccurrences(of: "\"imageOffset\":299800", with: "\"imageOffset\":1e999")
        text = text.replacingOccurrences(of: "\"faultingThread\" : 0", with: "\"faultingThread\" : 18446744073709551615")
        text = text.replacingOccurrences(of: "\"base\" : 4376231936", with: "\"base\" : -5")
        let report = try IPSReader.read(Data(text.utf8))
        #expect(report.isPartial)
        #expect(report.threads[0].frames[0].imageIndex == nil)
        #expect(report.threads[0].frames.count == 10)
        #expect(report.problems.contains { $0.location == "threads[0].frames[0].imageIndex" })
        #expect(report.problems.contains { $0.location == "threads[0].frames[1]" })
        // A 17-digit frame number, a 100-digit address and a negative image range in text.
        let crash = """
            Thread 0 Crashed:
            99999999999999999 Shop 0x100000000 main + 1
            0   Shop 0x1000000000000000000000000000000000 main + 1
            1   Shop 0x0000000100004000 main + 18446744073709551615999

            Binary Images:
            0x100000000 - 0x0fffffff Shop arm64  <82d13d98219e3040b62a07a297007a7c> /var/Shop
            """
        let textReport = try AppleTextReader.read(Data(crash.utf8))
        #expect(textReport.threads.count == 1)
        #expect(textReport.threads[0].frames.count == 1)
        #expect(textReport.isPartial)
    }

    @Test("a MetricKit call-stack tree nested 10,000 deep gives a partial report with the frames above the cut")
    func deepMetricKitTree() throws {
        var json = #"{"crashDiagnostics":[{"callStackTree":{"callStackPerThread":true,"callStacks":[{"threadAttributed":true,"callStackRootFrames":["#
        let depth = 10_000
        for level in 0..<depth {
            json += #"{"binaryUUID":"444F912B-06E7-395E-9E6E-D947B07401AC","offsetIntoBinaryTextSegment":4303978496,"sampleCount":1,"binaryName":"App","address":\#(4_303_978_496 + 4 * UInt64(level) + 4)"#
            json += level + 1 < depth ? #","subFrames":["# : "}"
        }
        json += String(repeating: "]}", count: depth - 1) + #"]}]},"diagnosticMetaData":{"exceptionType":1,"signal":11}}]}"#
        let reports = try MetricKitReader.read(Data(json.utf8))
        let report = try #require(reports.first)
        #expect(report.isPartial)
        #expect(report.problems.contains { $0.message.contains("nested deeper") })
        let frames = try #require(report.threads.first?.frames)
        #expect(frames.count > 100 && frames.count < depth)
        #expect(frames.first?.imageOffset == 4)
        // Deeper than the reader's limit entirely (a 100,000-deep array) is a typed error.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: ReportError.self) { _ = try ReportReader.read(Data(deep.utf8)) }
    }

    @Test("not a report: empty, whitespace, binary noise, other JSON, too large")
    func notReports() throws {
        #expect(throws: ReportError.empty) { _ = try ReportReader.read(Data()) }
        #expect(throws: ReportError.empty) { _ = try ReportReader.read(Data("  \n\t ".utf8)) }
        #expect(throws: ReportError.self) { _ = try ReportReader.read(Data([0x00, 0xFF, 0x13, 0x37, 0x0A, 0x80])) }
        #expect(throws: ReportError.self) { _ = try ReportReader.read(Data(#"{"hello":"world"}"#.utf8)) }
        #expect(throws: ReportError.self) { _ = try ReportReader.read(Data("just some\nplain text\n".utf8)) }
        var limits = ReportLimits()
        limits.maxBytes = 100
        #expect(throws: ReportError.tooLarge(bytes: 200, limit: 100)) {
            _ = try ReportReader.read(Data(repeating: 0x41, count: 200), limits: limits)
        }
        // An .ips header whose body is not a report.
        #expect(throws: ReportError.unsupportedReportType("151")) {
            _ = try ReportReader.read(Data("{\"bug_type\":\"151\"}\n{\"something\":1}\n".utf8))
        }
        #expect(throws: ReportError.self) { _ = try ReportReader.read(Data("{\"bug_type\":\"309\"}\n".utf8)) }
    }

    @Test("limits bound threads, frames and images; the rest is noted")
    func limits() throws {
        var limits = ReportLimits()
        limits.maxThreads = 2
        limits.maxFramesPerThread = 5
        limits.maxImages = 3
        let report = try #require(try ReportReader.read(try Fixture.data("watchdog-icu-scene-create.ips"), limits: limits).first)
        #expect(report.threads.count == 2)
        #expect(report.threads.allSatisfy { $0.frames.count <= 5 })
        #expect(report.images.count == 3)
        #expect(report.isPartial)
        let text = try #require(try ReportReader.read(try Fixture.data("watchdog-icu-scene-create.crash"), limits: limits).first)
        #expect(text.threads.count == 2)
        #expect(text.threads.allSatisfy { $0.frames.count <= 5 })
        #expect(text.images.count == 3)
    }
}
