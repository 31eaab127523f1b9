import Foundation
import VigilCommandLine
import VigilReports

/// `vigil report`: symbolicate, analyze and convert crash reports in any supported format
/// (`.ips`, Apple text, MetricKit JSON, Vigil events).
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "symbolicate, analyze or convert a crash report (.ips, .crash, MetricKit, Vigil)"
    static let usage = """
        usage: vigil report symbolicate REPORT --dsym PATH... [-o OUT]
               vigil report analyze REPORT [--dsym PATH...] [--json] [--all]
               vigil report convert REPORT --to vigil|ips|text|metrickit [-o OUT]

          REPORT         an .ips, .crash, MetricKit payload, Vigil event or KSCrash JSON file; - reads
                         standard input
          --dsym PATH    a dSYM bundle, a Mach-O or ELF debug file, a .symcache, or a directory of them
                         (repeatable)
          -o, --output   write the result to OUT instead of standard output
          --json         print the analysis as JSON
          --all          analyze every report of a file that holds several (a KSCrash recrash, an .ips
                         file of several documents); by default only the first, the original crash
          --to FORMAT    vigil (event JSON), ips, text (Apple's .crash layout) or metrickit

        symbolicate keeps the report's format (a KSCrash report is written as .ips) and lists
        images whose UUID had no matching file, app images apart from system ones, on standard
        error. convert lists on standard error what the target format cannot hold.
        """

    static func run(_ words: [String]) throws -> Int32 {
        guard let subcommand = words.first else { throw UsageError("missing subcommand: symbolicate, analyze or convert") }
        // `-o` is the usual spelling; the shared parser knows only `--name` options.
        let rest = words.dropFirst().map { $0 == "-o" ? "--output" : $0 }
        let arguments = try Arguments(Array(rest), valued: ["dsym", "output", "to"])
        switch subcommand {
        case "symbolicate": return try symbolicate(arguments)
        case "analyze": return try analyze(arguments)
        case "convert": return try convert(arguments)
        default: throw UsageError("unknown subcommand \"\(subcommand)\": expected symbolicate, analyze or convert")
        }
    }

    // MARK: Subcommands

    static func symbolicate(_ arguments: Arguments) throws -> Int32 {
        try check(arguments, flags: [], values: ["dsym", "output"])
        let paths = arguments.values("dsym")
        guard !paths.isEmpty else { throw UsageError("symbolicate needs at least one --dsym PATH") }
        let reports = try readReports(arguments)
        let lookup = makeLookup(paths, for: reports)
        var outputs: [CrashReport] = []
        for report in reports {
            let result = ReportSymbolicator(lookup: lookup).symbolicate(report)
            outputs.append(result.report)
            CommandDispatcher.writeStandardError(summaryText(result.summary))
        }
        var format = reports[0].format
        if format == .ksCrash {
            CommandDispatcher.writeStandardError("note: KSCrash reports are read, not written; the result is in .ips form")
            format = .ips
        }
        try emit(try render(outputs, as: format), arguments)
        return 0
    }

    static func analyze(_ arguments: Arguments) throws -> Int32 {
        try check(arguments, flags: ["json", "all"], values: ["dsym"])
        var reports = try readReports(arguments)
        let related = reports.filter { $0.documentIndex != nil }
        if !arguments.flag("all"), related.count > 1 {
            // A file of related reports: the first is the original crash, the others follow it.
            let others = related.dropFirst()
            let recrashes = others.filter { $0.isRecrash == true }.count
            var what = "\(others.count) further report\(others.count == 1 ? "" : "s") in the file"
            if recrashes > 0 { what += " (\(recrashes == 1 ? "a crash" : "\(recrashes) crashes") of the crash reporter's own handler)" }
            CommandDispatcher.writeStandardError("note: analyzing the first report; \(what) not analyzed: --all analyzes each")
            reports = reports.filter { $0.documentIndex == nil || $0.documentIndex == 0 }
        }
        var summaries: [SymbolicationSummary?] = Array(repeating: nil, count: reports.count)
        let paths = arguments.values("dsym")
        if !paths.isEmpty {
            let lookup = makeLookup(paths, for: reports)
            for index in reports.indices {
                let result = ReportSymbolicator(lookup: lookup).symbolicate(reports[index])
                reports[index] = result.report
                summaries[index] = result.summary
            }
        }
        let analyses = zip(reports, summaries).map { ReportAnalysis(report: $0, symbolication: $1) }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = analyses.count == 1 ? try encoder.encode(analyses[0]) : try encoder.encode(analyses)
            CommandDispatcher.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            CommandDispatcher.writeStandardOutput(zip(reports, analyses).map { describe($0, $1) }.joined(separator: "\n"))
        }
        return 0
    }

    static func convert(_ arguments: Arguments) throws -> Int32 {
        try check(arguments, flags: [], values: ["to", "output"])
        let target = try arguments.required("to")
        let format: ReportFormat
        switch target {
        case "vigil": format = .vigil
        case "ips": format = .ips
        case "text", "crash": format = .appleText
        case "metrickit": format = .metricKit
        default: throw UsageError("--to: \"\(target)\" is not vigil, ips, text or metrickit")
        }
        let reports = try readReports(arguments)
        for report in reports {
            let lost = ReportConversion.unrepresentable(report, in: format)
            guard !lost.isEmpty else { continue }
            CommandDispatcher.writeStandardError("note: \(format.rawValue) cannot hold: " + lost.joined(separator: "; "))
        }
        try emit(try render(reports, as: format), arguments)
        return 0
    }

    // MARK: Helpers

    static func check(_ arguments: Arguments, flags: Set<String>, values: Set<String>) throws {
        let unknown = arguments.unknown(allowedFlags: flags, allowedValues: values)
        guard unknown.isEmpty else { throw UsageError("unknown option --\(unknown[0])") }
    }

    static func readReports(_ arguments: Arguments) throws -> [CrashReport] {
        guard arguments.positional.count == 1, let path = arguments.positional.first else {
            throw UsageError(arguments.positional.isEmpty ? "missing REPORT" : "one REPORT at a time")
        }
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ReportCommandError("cannot read \(path)")
            }
            data = contents
        }
        let reports = try ReportReader.read(data)
        for report in reports where report.isPartial {
            CommandDispatcher.writeStandardError("warning: the report is partial (\(report.problems.count) problems):")
            for problem in report.problems.prefix(10) { CommandDispatcher.writeStandardError("  \(problem)") }
        }
        return reports
    }

    static func makeLookup(_ paths: [String], for reports: [CrashReport]) -> DebugFileLookup {
        let wanted = Set(reports.flatMap { $0.images.compactMap(\.uuid) })
        let lookup = DebugFileLookup(paths: paths, wanted: wanted)
        for issue in lookup.issues.prefix(20) { CommandDispatcher.writeStandardError("warning: \(issue)") }
        return lookup
    }

    static func render(_ reports: [CrashReport], as format: ReportFormat) throws -> String {
        switch format {
        case .vigil where reports.count > 1:
            let events = try reports.map { try VigilEventWriter.write($0).trimmingCharacters(in: .whitespacesAndNewlines) }
            return "[\n" + events.joined(separator: ",\n") + "\n]\n"
        case .metricKit where reports.count > 1:
            return MetricKitWriter.write(reports)
        default:
            return try reports.map { try ReportWriter.write($0, as: format) }.joined(separator: "\n")
        }
    }

    static func emit(_ text: String, _ arguments: Arguments) throws {
        if let output = arguments.value("output") {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output))
            } catch {
                throw ReportCommandError("cannot write \(output): \(error.localizedDescription)")
            }
        } else {
            CommandDispatcher.writeStandardOutput(text)
        }
    }

    static func summaryText(_ summary: SymbolicationSummary) -> String {
        var lines = ["symbolicated \(summary.framesSymbolicated) of \(summary.framesTotal) frames"]
        func list(_ title: String, _ images: [ImageReference]) {
            guard !images.isEmpty else { return }
            lines.append("\(title) (\(images.count)):")
            for image in images.prefix(40) {
                lines.append("  \(image.name) \(image.uuid ?? "?") \(image.arch ?? "?") — \(image.frames) frame\(image.frames == 1 ? "" : "s")")
            }
            if images.count > 40 { lines.append("  … \(images.count - 40) more") }
        }
        list("missing app images (no dSYM given)", summary.missingAppImages)
        list("missing system images", summary.missingSystemImages)
        return lines.joined(separator: "\n")
    }

    static func describe(_ report: CrashReport, _ analysis: ReportAnalysis) -> String {
        var lines: [String] = []
        let who = [report.process.name ?? report.app.bundleID, [report.app.version, report.app.build.map { "(\($0))" }]
            .compactMap { $0 }.joined(separator: " ")].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        let platform = [report.system.osDescription, report.system.deviceModel].compactMap { $0 }.joined(separator: ", ")
        lines.append("Report:       \(report.kind.rawValue) (\(report.format.rawValue))" + (who.isEmpty ? "" : " — \(who)")
            + (platform.isEmpty ? "" : ", \(platform)"))
        let diagnosis = analysis.diagnosis
        lines.append("Category:     \(diagnosis.category.rawValue)")
        lines.append("Title:        \(diagnosis.title)")
        lines.append("Confidence:   \(diagnosis.confidence.rawValue)")
        lines.append("Fingerprint:  \(analysis.fingerprint.value) (\(analysis.fingerprint.basis.rawValue): "
            + analysis.fingerprint.components.joined(separator: " | ") + ")")
        if !diagnosis.evidence.isEmpty {
            lines.append("Evidence:")
            lines += diagnosis.evidence.map { "  - \($0)" }
        }
        if !diagnosis.advice.isEmpty {
            lines.append("Advice:")
            lines += diagnosis.advice.map { "  - \($0)" }
        }
        if !analysis.alternatives.isEmpty {
            lines.append("Also matched:")
            lines += analysis.alternatives.map { "  - \($0.ruleID): \($0.title)" }
        }
        if report.isRecrash == true { lines.insert("Note:         the crash reporter's own handler crashed while writing the original report", at: 1) }
        if let summary = analysis.symbolication { lines.append(summaryText(summary)) }
        if !analysis.problems.isEmpty {
            lines.append("Problems (\(analysis.problems.count)):")
            lines += analysis.problems.prefix(10).map { "  - \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A `vigil report` failure that is not a usage mistake (unreadable file, unwritable output).
struct ReportCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
