import Foundation

/// Reads Apple's JSON crash reports (`.ips`): the one-line metadata object, then the report
/// object, as described in Apple's "Interpreting the JSON format of a crash report".
///
/// `bug_type` 309 is a crash report; 298 a jetsam event report (read by ``JetsamReader``);
/// 288 and 409 stackshot-style hang and spin reports (read by ``StackshotReader``) unless
/// their body has the crash-report shape, in which case it is read like 309 as a hang. A
/// body in the older text layout under a JSON header (`bug_type` 109, iOS 14 and earlier) is
/// read by ``AppleTextReader``. Unknown fields are ignored, so reports from newer OS versions
/// read. A truncated body is recovered up to the last complete value and marked partial.
///
/// Thread-safe (no state); cost linear in the input.
public enum IPSReader {
    /// Reads one `.ips` report.
    public static func read(_ data: Data, limits: ReportLimits = .standard) throws(ReportError) -> CrashReport {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        let bytes = [UInt8](data)
        guard let document = split(bytes, limits: limits) else {
            throw .unrecognizedFormat("no JSON metadata line with a bug_type")
        }
        return try read(document, bytes: bytes, limits: limits)
    }


    /// Reads every document of an `.ips` file: a file may hold several metadata-line and body
    /// pairs one after the other. With more than one, each report's ``CrashReport/documentIndex``
    /// says its position; the first is the one tools show by default.
    public static func readAll(_ data: Data, limits: ReportLimits = .standard) throws(ReportError) -> [CrashReport] {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        let bytes = [UInt8](data)
        guard let document = split(bytes, limits: limits) else {
            throw .unrecognizedFormat("no JSON metadata line with a bug_type")
        }
        var next: Int?
        var reports = [try read(document, bytes: bytes, limits: limits, bodyEnd: &next)]
        while let end = next, end < bytes.count, reports.count < min(limits.maxReports, 256) {
            // Only whitespace left: the usual single-document file.
            guard bytes[end...].contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { break }
            let rest = Array(bytes[end...])
            guard let following = split(rest, limits: limits), following.parsedBody == nil else { break }
            do {
                var followingEnd: Int?
                let report = try read(following, bytes: rest, limits: limits, bodyEnd: &followingEnd)
                reports.append(report)
                next = followingEnd.map { $0 + end }
            } catch {
                reports[0].note("document \(reports.count + 1)", "a further report in the file could not be read: \(error)")
                break
            }
        }
        if reports.count > 1 {
            for index in reports.indices { reports[index].documentIndex = index }
        }
        return reports
    }

    /// The parts of an `.ips` file.
    struct Document {
        /// The metadata object (for a header-less body, the body itself).
        var header: JSONValue
        /// 0-based line number of the metadata line.
        var headerLine: Int
        /// Byte offset where the report body starts.
        var bodyStart: Int
        /// The body already parsed, when the file is one JSON object without a metadata line.
        var parsedBody: JSONParseResult?
    }

    /// Finds the metadata line: the first line that is a complete JSON object with a
    /// `bug_type` (Xcode's "Translated Report (Full Report Below)" files put it after a text
    /// translation). A file that is a single JSON object with report fields is accepted too.
    static func split(_ bytes: [UInt8], limits: ReportLimits) -> Document? {
        var lineStart = 0
        var lineNumber = 0
        var candidates = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { lineStart = 3 }
        while lineStart < bytes.count, candidates < 64 {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            var first = lineStart
            while first < lineEnd, bytes[first] == 0x20 || bytes[first] == 0x09 || bytes[first] == 0x0D { first += 1 }
            if first < lineEnd, bytes[first] == UInt8(ascii: "{") {
                candidates += 1
                let line = Array(bytes[first..<lineEnd])
                if let parsed = try? JSONParser.parse(bytes: line, options: JSONParseOptions(maxDepth: 16)),
                   case .object = parsed.value, parsed.value["bug_type"] != nil {
                    return Document(header: parsed.value, headerLine: lineNumber, bodyStart: min(lineEnd + 1, bytes.count))
                }
                // A whole-file JSON object (a body without its metadata line).
                if candidates == 1 {
                    let rest = Array(bytes[first...])
                    let options = JSONParseOptions(maxDepth: limits.maxJSONDepth, recoversTruncation: true,
                                                   allowsTrailingContent: true)
                    if let parsed = try? JSONParser.parse(bytes: rest, options: options), case .object = parsed.value,
                       parsed.value["bug_type"] != nil || parsed.value["threads"] != nil || parsed.value["usedImages"] != nil {
                        return Document(header: parsed.value, headerLine: lineNumber, bodyStart: bytes.count, parsedBody: parsed)
                    }
                }
            }
            lineStart = lineEnd + 1
            lineNumber += 1
        }
        return nil
    }

    static func read(_ document: Document, bytes: [UInt8], limits: ReportLimits) throws(ReportError) -> CrashReport {
        var end: Int?
        return try read(document, bytes: bytes, limits: limits, bodyEnd: &end)
    }

    /// Reads one document; `bodyEnd` gets the byte offset just past its JSON body.
    static func read(_ document: Document, bytes: [UInt8], limits: ReportLimits, bodyEnd: inout Int?) throws(ReportError) -> CrashReport {
        let header = document.header
        let bugType = header["bug_type"].flatMap { $0.string ?? ($0.uint64.map { String($0) }) }
        var bodyResult: JSONParseResult? = document.parsedBody
        var bodyText: String?
        if bodyResult == nil {
            var start = document.bodyStart
            while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x0A || bytes[start] == 0x0D || bytes[start] == 0x09 {
                start += 1
            }
            guard start < bytes.count else { throw .missingField(keyPath: "report body (the JSON after the metadata line)") }
            if bytes[start] == UInt8(ascii: "{") {
                let options = JSONParseOptions(maxDepth: limits.maxJSONDepth, recoversTruncation: true,
                                               allowsTrailingContent: true)
                do {
                    let parsed = try JSONParser.parse(bytes: Array(bytes[start...]), options: options)
                    bodyResult = parsed
                    if !parsed.truncated { bodyEnd = start + parsed.endOffset }
                } catch {
                    var shifted = error
                    shifted.line += lineNumber(of: start, in: bytes) - 1
                    throw .malformedJSON(part: "report body", shifted)
                }
            } else {
                bodyText = String(decoding: bytes[start...], as: UTF8.self)
            }
        }

        var report: CrashReport
        if let bodyText {
            // The pre-iOS 15 layout: a JSON metadata line over a text report.
            report = try AppleTextReader.read(Data(bodyText.utf8), limits: limits)
            report.format = .ips
            report.bugType = bugType
            applyHeader(JSONFields(header), to: &report)
            return report
        }
        guard let bodyResult, case .object = bodyResult.value else {
            throw .invalidField(keyPath: "report body", reason: "expected a JSON object")
        }
        let body = bodyResult.value
        if bugType == "298" || (body["memoryStatus"] != nil && body["processes"] != nil) {
            report = JetsamReader.read(header: header, body: body, limits: limits)
        } else if body["processByPid"] != nil {
            report = StackshotReader.read(header: header, body: body, limits: limits)
        } else if body["threads"] != nil || body["usedImages"] != nil || body["exception"] != nil || bugType == "309" {
            report = CrashBodyReader.read(header: header, body: body, limits: limits)
            if let bugType, bugType != "309", bugType != "109", report.kind == .crash { report.kind = .hang }
        } else {
            throw .unsupportedReportType(bugType ?? "none")
        }
        if bodyResult.truncated {
            report.note("report body", "the JSON ends early (truncated file); read up to the last complete value")
        }
        for path in bodyResult.skippedPaths {
            report.note(path, "nested too deep; skipped")
        }
        report.original.content = .ips(header: header, body: body)
        return report
    }

    /// Fills fields the metadata line has and the body may lack.
    static func applyHeader(_ header: JSONFields, to report: inout CrashReport) {
        report.bugType = report.bugType ?? header.string("bug_type")
        report.incidentID = report.incidentID ?? header.text("incident_id")
        report.process.name = report.process.name ?? header.text("name") ?? header.text("app_name")
        report.app.bundleID = report.app.bundleID ?? header.text("bundleID")
        report.app.version = report.app.version ?? header.text("app_version")
        report.app.build = report.app.build ?? header.text("build_version")
        if let os = header.text("os_version"), report.system.osVersion == nil {
            let parsed = TextScanning.osVersion(os)
            report.system.osName = report.system.osName ?? parsed.name
            report.system.osVersion = parsed.version
            report.system.osBuild = report.system.osBuild ?? parsed.build
        }
        report.captureTime = report.captureTime ?? header.text("timestamp")
    }

    private static func lineNumber(of offset: Int, in bytes: [UInt8]) -> Int {
        var line = 1
        for position in 0..<min(offset, bytes.count) where bytes[position] == 0x0A { line += 1 }
        return line
    }
}
