import Foundation
import VigilCore

/// Reads Vigil's own `crash` and `hang` events (event schema version 1, see
/// `docs/event-schema.md`): a single event, a JSON array or JSON lines.
///
/// Absolute stack addresses are mapped to `(image, offset)` through the event's `images`; an
/// address outside every image keeps its absolute value with no image. Events of other types
/// in a batch are skipped; a single event of another type is an error. Thread-safe.
public enum VigilEventReader {
    /// Reads every crash and hang event in `data`.
    public static func read(_ data: Data, limits: ReportLimits = .standard) throws(ReportError) -> [CrashReport] {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        // The hand-written parser first: depth-limited, with a line and key path on failure.
        let parsed: JSONParseResult
        do {
            parsed = try JSONParser.parse(data, options: JSONParseOptions(maxDepth: limits.maxJSONDepth))
        } catch let error where error.kind == .trailingContent {
            return try readLines(data, limits: limits)
        } catch {
            throw .malformedJSON(part: "event", error)
        }
        switch parsed.value {
        case .array(let elements):
            var reports: [CrashReport] = []
            for (index, element) in elements.prefix(limits.maxReports).enumerated() {
                guard let report = try read(element, path: "[\(index)]", single: false, limits: limits) else { continue }
                reports.append(report)
            }
            guard !reports.isEmpty else { throw .noReports("the batch has no crash or hang events") }
            return reports
        case .object:
            guard let report = try read(parsed.value, path: "", single: true, limits: limits) else {
                throw .noReports("not a crash or hang event")
            }
            return [report]
        default:
            throw .unrecognizedFormat("a Vigil event is a JSON object")
        }
    }

    private static func readLines(_ data: Data, limits: ReportLimits) throws(ReportError) -> [CrashReport] {
        var reports: [CrashReport] = []
        for (index, line) in data.split(separator: 0x0A).enumerated() where reports.count < limits.maxReports {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
            let value: JSONValue
            do {
                value = try JSONParser.parse(Data(line), options: JSONParseOptions(maxDepth: limits.maxJSONDepth)).value
            } catch {
                var located = error
                located.line = index + 1
                throw .malformedJSON(part: "event on line \(index + 1)", located)
            }
            if let report = try read(value, path: "line \(index + 1)", single: false, limits: limits) { reports.append(report) }
        }
        guard !reports.isEmpty else { throw .noReports("no crash or hang events") }
        return reports
    }

    /// One event as a report; nil for events of other types unless `single`.
    static func read(_ value: JSONValue, path: String, single: Bool, limits: ReportLimits) throws(ReportError) -> CrashReport? {
        let type = value["type"]?.string
        guard type == "crash" || type == "hang" else {
            if single { throw .unsupportedReportType("Vigil event type \(type ?? "missing")") }
            return nil
        }
        let event: Event
        do {
            event = try EventJSON.decode(Data(JSONWriter().compact(value).utf8))
        } catch {
            throw .invalidField(keyPath: path.isEmpty ? "event" : path, reason: EventJSON.describe(error))
        }
        var report = report(from: event, limits: limits)
        if type == "crash" { VigilEventDetails.apply(value["payload"], to: &report, limits: limits) }
        report.original.content = .vigil(event: value)
        return report
    }

    /// Converts a decoded crash or hang event; other event types give a report without threads.
    public static func report(from event: Event, limits: ReportLimits = .standard) -> CrashReport {
        var report = CrashReport(format: .vigil, kind: event.type == .hang ? .hang : .crash)
        report.incidentID = event.id.canonicalString
        report.captureTime = AppleDate.format(event.time)
        func value(_ text: String) -> String? { text.isEmpty || text == "unknown" ? nil : text }
        report.app = AppDetails(bundleID: value(event.app.id), version: value(event.app.version), build: value(event.app.build))
        report.system = SystemDetails(osName: value(event.device.os), osVersion: value(event.device.osVersion),
                                      deviceModel: value(event.device.model), architecture: value(event.device.arch))
        report.extraFields.append(ReportField(name: "session", value: event.session.canonicalString))
        if let page = event.context.page { report.extraFields.append(ReportField(name: "page", value: page)) }
        for image in (event.images ?? []).prefix(limits.maxImages) {
            report.images.append(BinaryImage(name: image.name, uuid: image.id, arch: value(image.arch), base: image.loadAddress.value,
                                             size: image.size == 0 ? nil : image.size, path: image.path))
        }
        switch event.payload {
        case .crash(let crash):
            var exception = ExceptionDetails(signal: crash.signal, codesText: crash.code, faultAddress: crash.faultAddress?.value)
            if let signal = crash.signal, ["SIGSEGV", "SIGBUS"].contains(signal) { exception.type = "EXC_BAD_ACCESS" }
            if crash.signal != nil || crash.code != nil || crash.faultAddress != nil { report.exception = exception }
            if let language = crash.exception {
                report.languageException = LanguageException(kind: kind(ofExceptionType: language.type), name: language.type,
                                                             reason: language.reason)
                if let frames = language.frames, !frames.isEmpty {
                    report.lastExceptionBacktrace = frames.prefix(limits.maxFramesPerThread).map { frame(for: $0.value, in: report) }
                }
            }
            if let reason = crash.terminationReason {
                var termination = TerminationDetails()
                AppleTextParser.parseTerminationReason(reason.components(separatedBy: "\n"), into: &termination)
                report.termination = termination
            }
            if crash.fatalHang { report.extraFields.append(ReportField(name: "fatalHang", value: "true")) }
            for (position, thread) in crash.threads.prefix(limits.maxThreads).enumerated() {
                var record = ThreadRecord(number: position, name: thread.name, crashed: thread.crashed)
                if thread.name == "main" || thread.name == "com.apple.main-thread" { record.queue = "com.apple.main-thread" }
                record.frames = thread.frames.prefix(limits.maxFramesPerThread).map { frame(for: $0.value, in: report) }
                if thread.crashed, let registers = crash.registers {
                    record.registers = registers.sorted(by: { RegisterOrder.precedes($0.key, $1.key) })
                        .map { Register(name: $0.key, value: $0.value.value) }
                }
                report.threads.append(record)
            }
            report.triggeredThreadIndex = report.threads.firstIndex(where: \.crashed)
        case .hang(let hang):
            report.hang = HangDetails(durationMs: hang.durationMs)
            report.captureTime = AppleDate.format(hang.start)
            report.extraFields += [
                ReportField(name: "hangKind", value: hang.kind.rawValue),
                ReportField(name: "thresholdMs", value: String(hang.thresholdMs)),
                ReportField(name: "runLoopActivity", value: hang.runLoopActivity),
            ]
            var main = ThreadRecord(number: 0, name: "main", queue: "com.apple.main-thread", crashed: true)
            main.samples = hang.stacks.prefix(limits.maxSamplesPerStack).map { stack in
                StackSample(frames: stack.frames.prefix(limits.maxFramesPerThread).map { frame(for: $0.value, in: report) },
                            count: stack.count)
            }
            if let hot = hang.hotStack {
                main.frames = hot.prefix(limits.maxFramesPerThread).map { frame(for: $0.value, in: report) }
            } else {
                main.frames = main.samples?.max(by: { $0.count < $1.count })?.frames ?? []
            }
            report.threads = [main]
            report.triggeredThreadIndex = 0
        default:
            break
        }
        return report
    }

    static func frame(for address: UInt64, in report: CrashReport) -> StackFrame {
        guard let index = report.imageIndex(containing: address) else { return StackFrame(imageIndex: nil, imageOffset: address) }
        return StackFrame(imageIndex: index, imageOffset: address - report.images[index].base)
    }

    static func kind(ofExceptionType type: String) -> LanguageException.Kind {
        if type.contains("std::") || type.hasPrefix("C++") { return .cplusplus }
        if type.hasPrefix("NS") || type.contains("Objective-C") { return .objectiveC }
        return .swift
    }
}

/// Display order of register names: `x0`…`x28`, then `fp`, `lr`, `sp`, `pc`, `cpsr`, then the
/// rest alphabetically; numbered registers by number.
enum RegisterOrder {
    static let fixed = ["fp", "lr", "sp", "pc", "cpsr", "far", "esr", "rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp",
                        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip", "rflags", "cs", "fs", "gs"]

    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        rank(lhs) < rank(rhs) || (rank(lhs) == rank(rhs) && lhs < rhs)
    }

    private static func rank(_ name: String) -> Int {
        if name.hasPrefix("x"), let number = Int(name.dropFirst()) { return number }
        if let position = fixed.firstIndex(of: name) { return 100 + position }
        return 1000
    }
}
