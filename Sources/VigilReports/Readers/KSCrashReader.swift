import Foundation

/// Reads KSCrash's native JSON crash reports (the format KSCrash writes on the device before
/// any filter converts it): `report` (id, timestamp, process name), `system` (bundle, OS,
/// device, CPU), `crash.error` (`mach`, `signal`, `nsexception`, `cpp_exception`, `user_reported`,
/// the fault `address`, a `type` such as `deadlock`), `crash.threads[]` with
/// `backtrace.contents[]` frames (`instruction_addr`, `object_addr`, `object_name`,
/// `symbol_addr`, `symbol_name`) and `registers.basic`, `binary_images[]`, and `user`.
///
/// A report with a `recrash_report` gives two reports: the original crash first, then the
/// crash of the crash handler itself (``CrashReport/isRecrash``). A JSON array of KSCrash
/// reports gives one report each. Stack and memory dumps, notable addresses and
/// introspected objects are not read. Frames are resolved against `binary_images` by their
/// `object_addr`; a frame whose image is missing from the list gets an image synthesized from
/// its `object_name` and `object_addr`.
///
/// Thread-safe (no state); cost linear in the input.
public enum KSCrashReader {
    /// Reads every report in `data`.
    public static func read(_ data: Data, limits: ReportLimits = .standard) throws(ReportError) -> [CrashReport] {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        let parsed: JSONParseResult
        do {
            parsed = try JSONParser.parse(data, options: JSONParseOptions(maxDepth: limits.maxJSONDepth, recoversTruncation: true,
                                                                           skipsTooDeep: true))
        } catch {
            throw .malformedJSON(part: "KSCrash report", error)
        }
        var documents: [(JSONValue, String)] = []
        switch parsed.value {
        case .object: documents = [(parsed.value, "")]
        case .array(let elements):
            documents = elements.prefix(limits.maxReports).enumerated().compactMap { index, element in
                if case .object = element { return (element, "[\(index)]") }
                return nil
            }
        default: throw .unrecognizedFormat("a KSCrash report is a JSON object")
        }
        var reports: [CrashReport] = []
        for (document, path) in documents {
            reports += try readDocument(document, path: path, limits: limits)
        }
        guard !reports.isEmpty else { throw .noReports("no KSCrash report objects") }
        if parsed.truncated, let last = reports.indices.last {
            reports[last].note("report", "the JSON ends early (truncated file); read up to the last complete value")
        }
        for path in parsed.skippedPaths.prefix(4) {
            if let last = reports.indices.last { reports[last].note(path, "nested too deep; skipped") }
        }
        if reports.count > 1 {
            for index in reports.indices { reports[index].documentIndex = index }
        }
        return reports
    }

    /// One KSCrash report object: one report, or the original and the handler's recrash.
    static func readDocument(_ value: JSONValue, path: String, limits: ReportLimits) throws(ReportError) -> [CrashReport] {
        let top = JSONFields(value, path: path)
        guard top.has("crash") || top.has("report") else {
            throw .missingField(keyPath: top.path("crash"))
        }
        guard let nested = top.object("recrash_report"), nested.has("crash") else {
            return [report(from: top, sibling: nil, limits: limits)]
        }
        // KSCrash 1.x/2.x embedded the handler's crash as `recrash_report` of the original; from
        // report version 3 the file is the handler's (minimal) report with the original
        // embedded. The minimal one is the recrash either way.
        let topMinimal = top.object("report")?.text("type") == "minimal" || top.object("crash")?.has("threads") == false
        let nestedMinimal = nested.object("report")?.text("type") == "minimal" || nested.object("crash")?.has("threads") == false
        let (original, recrash) = nestedMinimal && !topMinimal ? (top, nested) : (nested, top)
        let first = report(from: original, sibling: recrash, limits: limits)
        var second = report(from: recrash, sibling: original, limits: limits)
        second.isRecrash = true
        return [first, second]
    }

    static func report(from fields: JSONFields, sibling: JSONFields?, limits: ReportLimits) -> CrashReport {
        var report = CrashReport(format: .ksCrash, kind: .crash)
        let info = fields.object("report")
        let system = fields.object("system") ?? sibling?.object("system")
        report.incidentID = info?.text("id")
        report.captureTime = info.flatMap(timestamp)
        report.process.name = info?.text("process_name") ?? system?.text("process_name") ?? system?.text("CFBundleExecutable")
        if let system { readSystem(system, into: &report) }
        let imageList = fields.array("binary_images") ?? sibling?.array("binary_images") ?? []
        for (index, image) in imageList.prefix(limits.maxImages).enumerated() {
            let item = JSONFields(image, path: fields.path("binary_images") + "[\(index)]")
            guard let base = item.uint64("image_addr") else {
                report.note(item.path, "binary image without image_addr; skipped")
                continue
            }
            let path = item.text("name")
            let name = path.map { ($0 as NSString).lastPathComponent } ?? "???"
            let arch = Self.architecture(type: item.int("cpu_type"), subtype: item.int("cpu_subtype"))
            report.images.append(BinaryImage(name: name, uuid: item.text("uuid"), arch: arch, base: base,
                                             size: item.uint64("image_size"), path: path))
        }
        if imageList.count > limits.maxImages {
            report.note(fields.path("binary_images"), "more than \(limits.maxImages) images; the rest are skipped")
        }
        if report.system.architecture == nil, let executable = report.process.path,
           let main = report.images.first(where: { $0.path == executable }) {
            report.system.architecture = main.arch
        }
        let crash = fields.object("crash")
        if let error = crash?.object("error") { readError(error, into: &report) }
        if let diagnosis = crash?.text("diagnosis") { report.extraFields.append(ReportField(name: "diagnosis", value: diagnosis)) }
        var threads = crash?.array("threads") ?? []
        var threadsPath = crash?.path("threads") ?? "crash.threads"
        if threads.isEmpty, let crashed = crash?.value["crashed_thread"] {
            threads = [crashed]
            threadsPath = crash?.path("crashed_thread") ?? "crash.crashed_thread"
        }
        for (position, thread) in threads.prefix(limits.maxThreads).enumerated() {
            let item = JSONFields(thread, path: threads.count == 1 && threadsPath.hasSuffix("crashed_thread") ? threadsPath : threadsPath + "[\(position)]")
            report.threads.append(readThread(item, position: position, forceCrashed: threadsPath.hasSuffix("crashed_thread"), report: &report,
                                             limits: limits))
        }
        if threads.count > limits.maxThreads {
            report.note(threadsPath, "more than \(limits.maxThreads) threads; the rest are skipped")
        }
        report.triggeredThreadIndex = report.threads.firstIndex(where: \.crashed)
        // KSCrash records an NSException's own call stack as the crashed thread's backtrace.
        if report.languageException?.kind == .objectiveC || report.languageException?.kind == .cplusplus,
           let crashed = report.triggeredThread, !crashed.frames.isEmpty,
           fields.object("crash")?.object("error")?.text("type") != "signal" {
            report.lastExceptionBacktrace = crashed.frames
        }
        if let user = fields.object("user"), let members = user.value.members {
            for member in members.prefix(32) {
                let text = member.value.string ?? JSONWriter().compact(member.value)
                report.extraFields.append(ReportField(name: "user." + member.key, value: String(text.prefix(1024))))
            }
        }
        if fields.bool("incomplete") == true {
            report.note(fields.path("incomplete"), "KSCrash marked the report incomplete (the handler stopped while writing it)")
        }
        report.original.content = nil
        return report
    }

    static func readSystem(_ system: JSONFields, into report: inout CrashReport) {
        report.app.bundleID = system.text("CFBundleIdentifier")
        report.app.version = system.text("CFBundleShortVersionString")
        report.app.build = system.text("CFBundleVersion")
        report.process.path = system.text("CFBundleExecutablePath")
        report.process.pid = system.int("process_id")
        report.process.parentPID = system.int("parent_process_id")
        report.process.parentName = system.text("parent_process_name")
        report.system.osName = system.text("system_name")
        report.system.osVersion = system.text("system_version")
        report.system.osBuild = system.text("os_version")
        report.system.deviceModel = system.text("machine")
        if let arch = system.text("cpu_arch") {
            report.system.architecture = arch
            report.system.cpuType = cpuType(arch)
        }
        report.launchTime = system.text("app_start_time")
        if let active = system.object("application_stats")?.bool("application_in_foreground") {
            report.process.role = active ? "Foreground" : "Background"
        }
    }

    static func readError(_ error: JSONFields, into report: inout CrashReport) {
        var exception = ExceptionDetails()
        let mach = error.object("mach")
        let signal = error.object("signal")
        if let mach {
            exception.type = mach.text("exception_name") ?? mach.int("exception").flatMap { $0 == 0 ? nil : MachNames.exceptionName($0) }
            if let code = mach.uint64("code") { exception.codes.append(code) }
            if let subcode = mach.uint64("subcode") { exception.codes.append(subcode) }
        }
        if let signal {
            exception.signal = signal.text("name") ?? signal.int("signal").flatMap { $0 == 0 ? nil : MachNames.signalName($0) }
        }
        let address = error.uint64("address")
        let codeName = mach?.text("code_name") ?? signal?.text("code_name")
        if let codeName {
            exception.codesText = codeName + (address.map { " at 0x" + String(format: "%016llx", $0) } ?? "")
            if exception.type == "EXC_BAD_ACCESS" { exception.subtype = exception.codesText }
        }
        let memoryFault = exception.type == "EXC_BAD_ACCESS" || exception.signal == "SIGSEGV" || exception.signal == "SIGBUS"
        if memoryFault { exception.faultAddress = address }
        if exception.type != nil || exception.signal != nil || exception.codesText != nil { report.exception = exception }
        let reason = error.text("reason")
        let type = error.text("type")
        if let nsexception = error.object("nsexception") {
            report.languageException = LanguageException(kind: .objectiveC, name: nsexception.text("name"),
                                                         reason: reason ?? nsexception.text("reason"))
        } else if let cpp = error.object("cpp_exception") {
            report.languageException = LanguageException(kind: .cplusplus, name: cpp.text("name"), reason: reason)
        } else if let user = error.object("user_reported") {
            report.languageException = LanguageException(kind: .objectiveC, name: user.text("name"), reason: reason)
        } else if let reason, type != "mach", type != "signal" {
            report.applicationSpecificInfo.append(reason)
        }
        if let language = report.languageException, language.kind == .objectiveC {
            report.applicationSpecificInfo.append("*** Terminating app due to uncaught exception '\(language.name ?? "NSException")', reason: '\(language.reason ?? "")'")
        }
        if type == "deadlock" { report.applicationSpecificInfo.append("Application main thread deadlocked") }
        if let type { report.extraFields.append(ReportField(name: "errorType", value: type)) }
    }

    static func readThread(_ item: JSONFields, position: Int, forceCrashed: Bool, report: inout CrashReport,
                           limits: ReportLimits) -> ThreadRecord {
        var thread = ThreadRecord(number: item.int("index") ?? position, name: item.text("name"), queue: item.text("dispatch_queue"),
                                  crashed: forceCrashed || item.bool("crashed") == true)
        let contents = item.object("backtrace")?.array("contents") ?? []
        for (index, entry) in contents.prefix(limits.maxFramesPerThread).enumerated() {
            let frame = JSONFields(entry, path: item.path("backtrace.contents") + "[\(index)]")
            guard let address = frame.uint64("instruction_addr") else {
                report.note(frame.path, "frame without instruction_addr; skipped")
                continue
            }
            thread.frames.append(stackFrame(frame, address: address, report: &report, limits: limits))
        }
        if contents.count > limits.maxFramesPerThread {
            report.note(item.path("backtrace.contents"), "more than \(limits.maxFramesPerThread) frames; the rest are skipped")
        }
        if let basic = item.object("registers")?.object("basic")?.value.members {
            thread.registers = basic.compactMap { member in member.value.uint64.map { Register(name: member.key, value: $0) } }
                .sorted { RegisterOrder.precedes($0.name, $1.name) }
        }
        if let far = item.object("registers")?.object("exception")?.uint64("far") {
            thread.registers.append(Register(name: "far", value: far))
        }
        return thread
    }

    static func stackFrame(_ frame: JSONFields, address: UInt64, report: inout CrashReport, limits: ReportLimits) -> StackFrame {
        let objectName = frame.text("object_name").map { ($0 as NSString).lastPathComponent }
        var symbol = frame.text("symbol_name")
        if symbol == "<redacted>" { symbol = nil }
        let symbolOffset = symbol == nil ? nil : frame.uint64("symbol_addr").flatMap { address >= $0 ? address - $0 : nil }
        var imageIndex: Int?
        if let base = frame.uint64("object_addr"), base > 0, address >= base {
            imageIndex = report.images.firstIndex(where: { $0.base == base })
            if imageIndex == nil, report.images.count < limits.maxImages {
                report.images.append(BinaryImage(name: objectName ?? "???", uuid: nil, base: base))
                imageIndex = report.images.count - 1
            }
        } else {
            imageIndex = report.imageIndex(containing: address)
        }
        let offset = imageIndex.map { address - report.images[$0].base } ?? address
        return StackFrame(imageIndex: imageIndex, imageOffset: offset, imageName: objectName, symbol: symbol,
                          symbolOffset: symbolOffset)
    }

    /// `2013-01-14T03:21:40Z` as written, or KSCrash 2's microseconds since 1970 as RFC 3339.
    static func timestamp(_ info: JSONFields) -> String? {
        if case .number? = info.value["timestamp"], let micro = info.uint64("timestamp") {
            let date = Date(timeIntervalSince1970: Double(micro) / (micro > 100_000_000_000_000 ? 1_000_000 : 1))
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.string(from: date)
        }
        return info.text("timestamp")
    }

    /// Apple's code type for an architecture name.
    static func cpuType(_ arch: String) -> String {
        if arch.hasPrefix("arm64") { return "ARM-64" }
        if arch.hasPrefix("arm") { return "ARM" }
        if arch == "x86_64" || arch == "x86_64h" { return "X86-64" }
        if arch == "x86" || arch == "i386" { return "X86" }
        return arch
    }

    /// The architecture name for Mach-O `cputype` / `cpusubtype` numbers.
    static func architecture(type: Int?, subtype: Int?) -> String? {
        guard let type else { return nil }
        let sub = (subtype ?? 0) & 0x00FF_FFFF
        switch type {
        case 12:
            switch sub {
            case 6: return "armv6"
            case 9: return "armv7"
            case 11: return "armv7s"
            case 12: return "armv7k"
            default: return "arm"
            }
        case 0x0100_000C: return sub == 2 ? "arm64e" : "arm64"
        case 0x0200_000C: return "arm64_32"
        case 7: return "i386"
        case 0x0100_0007: return sub == 8 ? "x86_64h" : "x86_64"
        default: return nil
        }
    }
}
