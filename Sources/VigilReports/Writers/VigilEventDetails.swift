import Foundation

/// What a crash report holds beyond the event schema's crash payload, written as the optional
/// `payload.reportDetails` member of a `crash` event so that converting a report to a Vigil
/// event and back keeps it: function names per frame (with their inlined chains), the
/// exception backtrace, the Mach exception type and subtype, the language exception's kind,
/// the Application Specific Information lines, VM region info and dispatch queue names.
///
/// The event schema ignores unknown members, so events with details still decode everywhere;
/// the server's own symbolication does not need them. Pure functions, thread-safe.
enum VigilEventDetails {
    /// The member name inside `payload`.
    static let key = "reportDetails"

    /// The details of `report`, or nil when it has nothing the payload lacks.
    static func encode(_ report: CrashReport) -> JSONValue? {
        var members: [JSONMember] = []
        func add(_ name: String, _ text: String?) { if let text { members.append(JSONMember(name, .string(text))) } }
        add("exceptionType", report.exception?.type)
        add("exceptionSubtype", report.exception?.subtype)
        add("exceptionMessage", report.exception?.message)
        add("languageExceptionKind", report.languageException?.kind.rawValue)
        add("vmRegionInfo", report.vmRegionInfo)
        if !report.applicationSpecificInfo.isEmpty {
            members.append(JSONMember("applicationSpecificInfo", .array(report.applicationSpecificInfo.map(JSONValue.string))))
        }
        let threads = report.threads.map { thread -> JSONValue in
            var fields: [JSONMember] = []
            if let queue = thread.queue { fields.append(JSONMember("queue", .string(queue))) }
            if thread.frames.contains(where: { $0.symbol != nil }) { fields.append(JSONMember("symbols", symbols(thread.frames))) }
            return .object(fields)
        }
        if threads.contains(where: { $0.members?.isEmpty == false }) { members.append(JSONMember("threads", .array(threads))) }
        if let backtrace = report.lastExceptionBacktrace, !backtrace.isEmpty {
            let outer = backtrace.filter { !$0.isInlined }
            members.append(JSONMember("lastExceptionBacktrace", .object([
                JSONMember("frames", .array(outer.map { .string("0x" + String(report.address(of: $0), radix: 16)) })),
                JSONMember("symbols", symbols(backtrace)),
            ])))
        }
        return members.isEmpty ? nil : .object(members)
    }

    /// One entry per outer frame: its name, `[inlined…, outer]` names when functions were
    /// inlined into it, or null when unsymbolicated.
    static func symbols(_ frames: [StackFrame]) -> JSONValue {
        var entries: [JSONValue] = []
        var pending: [String] = []
        for frame in frames {
            if frame.isInlined {
                if let symbol = frame.symbol { pending.append(symbol) }
                continue
            }
            if pending.isEmpty {
                entries.append(frame.symbol.map(JSONValue.string) ?? .null)
            } else {
                entries.append(.array((pending + [frame.symbol ?? "???"]).map(JSONValue.string)))
            }
            pending.removeAll()
        }
        return .array(entries)
    }

    /// Applies the details in `payload` to a report read from the event.
    static func apply(_ payload: JSONValue?, to report: inout CrashReport, limits: ReportLimits) {
        guard let details = payload?[key], case .object = details else { return }
        let fields = JSONFields(details, path: "payload." + key)
        if fields.text("exceptionType") != nil || fields.text("exceptionSubtype") != nil || fields.text("exceptionMessage") != nil {
            var exception = report.exception ?? ExceptionDetails()
            exception.type = fields.text("exceptionType") ?? exception.type
            exception.subtype = fields.text("exceptionSubtype")
            exception.message = fields.text("exceptionMessage")
            report.exception = exception
        }
        if let kind = fields.text("languageExceptionKind").flatMap(LanguageException.Kind.init(rawValue:)) {
            report.languageException?.kind = kind
        }
        report.vmRegionInfo = fields.text("vmRegionInfo") ?? report.vmRegionInfo
        report.applicationSpecificInfo = Array(fields.strings("applicationSpecificInfo").prefix(256))
        for (index, thread) in (fields.array("threads") ?? []).enumerated() where report.threads.indices.contains(index) {
            let item = JSONFields(thread)
            if let queue = item.text("queue") { report.threads[index].queue = queue }
            if let symbols = item.array("symbols") {
                report.threads[index].frames = named(report.threads[index].frames, symbols, limits: limits)
            }
        }
        if let backtrace = fields.object("lastExceptionBacktrace") {
            let frames = (backtrace.array("frames") ?? []).prefix(limits.maxFramesPerThread).compactMap { value -> StackFrame? in
                guard let address = value.uint64 else { return nil }
                return VigilEventReader.frame(for: address, in: report)
            }
            report.lastExceptionBacktrace = named(Array(frames), backtrace.array("symbols") ?? [], limits: limits)
        }
    }

    /// `frames` (outer frames only) with the names of `symbols`, inlined frames inserted.
    static func named(_ frames: [StackFrame], _ symbols: [JSONValue], limits: ReportLimits) -> [StackFrame] {
        var result: [StackFrame] = []
        for (index, frame) in frames.enumerated() {
            guard index < symbols.count else { result.append(frame); continue }
            switch symbols[index] {
            case .string(let name):
                var named = frame
                named.symbol = name
                result.append(named)
            case .array(let chain) where !chain.isEmpty:
                let names = chain.prefix(64).compactMap(\.string)
                for name in names.dropLast() {
                    var inlined = frame
                    inlined.symbol = name
                    inlined.isInlined = true
                    result.append(inlined)
                }
                var outer = frame
                outer.symbol = names.last == "???" ? nil : names.last
                result.append(outer)
            default:
                result.append(frame)
            }
            if result.count >= limits.maxFramesPerThread { break }
        }
        return result
    }
}
