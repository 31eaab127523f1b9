import Foundation

/// Writes a ``CrashReport`` as an Apple `.ips` file: the metadata line, a newline, the report
/// object (top-level members one per line, Apple's `"key" : value` spacing, `\/` escapes).
///
/// A report read from `.ips` keeps its source document: only `threads[].frames` and
/// `lastExceptionBacktrace` are replaced, so every field Apple wrote survives. Symbolicated
/// frames carry `symbol`, `symbolLocation`, `sourceFile`, `sourceLine`, and inlined functions
/// appear as frames with `"inline" : true` before the frame they were inlined into, as
/// Apple's symbolicator writes them. Other reports are laid out from the model; hang reports
/// get `bug_type` 288, jetsam reports 298, crashes 309.
public enum IPSWriter {
    /// The report as `.ips` text.
    public static func write(_ report: CrashReport) -> String {
        let (header, body): (JSONValue, JSONValue)
        if case .ips(let originalHeader, let originalBody)? = report.original.content, report.format == .ips,
           report.kind != .jetsam, originalBody["processByPid"] == nil {
            header = originalHeader
            body = patched(originalBody, with: report)
        } else {
            header = makeHeader(report)
            body = report.kind == .jetsam ? makeJetsamBody(report) : makeBody(report)
        }
        let writer = JSONWriter(escapesSlashes: true, spacedColons: true)
        var out = writer.compact(header) + "\n"
        out += renderBody(body, writer: writer)
        return out + "\n"
    }

    /// Apple's body layout: one top-level member per line, nested values compact, except the
    /// image list which has one member per line.
    static func renderBody(_ body: JSONValue, writer: JSONWriter) -> String {
        guard case .object(let members) = body else { return writer.compact(body) }
        var out = "{\n"
        for (position, member) in members.enumerated() {
            out += "  "
            writer.writeString(member.key, into: &out)
            out += " : "
            if member.key == "usedImages" || member.key == "sharedCache" || member.key == "legacyInfo" {
                out += writer.pretty(member.value, expandedDepth: 2)
            } else {
                writer.writeCompact(member.value, into: &out)
            }
            out += position + 1 < members.count ? ",\n" : "\n"
        }
        return out + "}"
    }

    // MARK: Patching the source document

    static func patched(_ body: JSONValue, with report: CrashReport) -> JSONValue {
        guard case .object(var members) = body else { return body }
        for index in members.indices {
            switch members[index].key {
            case "threads":
                guard case .array(var threads) = members[index].value else { continue }
                for position in threads.indices where position < report.threads.count {
                    guard case .object(var fields) = threads[position] else { continue }
                    let frames = JSONValue.array(report.threads[position].frames.map { encode($0) })
                    if let slot = fields.firstIndex(where: { $0.key == "frames" }) {
                        fields[slot].value = frames
                    } else {
                        fields.append(JSONMember("frames", frames))
                    }
                    threads[position] = .object(fields)
                }
                members[index].value = .array(threads)
            case "lastExceptionBacktrace":
                if let backtrace = report.lastExceptionBacktrace {
                    members[index].value = .array(backtrace.map { encode($0) })
                }
            default:
                continue
            }
        }
        return .object(members)
    }

    /// A frame the way Apple writes it: `imageOffset`, symbol fields when symbolicated,
    /// `imageIndex`.
    static func encode(_ frame: StackFrame) -> JSONValue {
        var members: [JSONMember] = []
        if frame.isInlined, let symbol = frame.symbol {
            members.append(JSONMember("symbol", .string(symbol)))
            members.append(JSONMember("inline", .bool(true)))
            if let index = frame.imageIndex { members.append(JSONMember("imageIndex", .integer(index))) }
            members.append(JSONMember("imageOffset", .integer(frame.imageOffset)))
            if let offset = frame.symbolOffset { members.append(JSONMember("symbolLocation", .integer(offset))) }
            if let line = frame.sourceLine { members.append(JSONMember("sourceLine", .integer(line))) }
            if let file = frame.sourceFile { members.append(JSONMember("sourceFile", .string(file))) }
            return .object(members)
        }
        members.append(JSONMember("imageOffset", .integer(frame.imageOffset)))
        if let line = frame.sourceLine { members.append(JSONMember("sourceLine", .integer(line))) }
        if let file = frame.sourceFile { members.append(JSONMember("sourceFile", .string(file))) }
        if let symbol = frame.symbol { members.append(JSONMember("symbol", .string(symbol))) }
        if let index = frame.imageIndex { members.append(JSONMember("imageIndex", .integer(index))) }
        if let offset = frame.symbolOffset, frame.symbol != nil { members.append(JSONMember("symbolLocation", .integer(offset))) }
        return .object(members)
    }

    // MARK: Laying out from the model

    static func platformNumber(_ report: CrashReport) -> Int? {
        switch report.system.osName {
        case "macOS"?, "Mac OS X"?, "OS X"?: return 1
        case "iPhone OS"?, "iOS"?, "iPadOS"?: return 2
        case "tvOS"?, "Apple TVOS"?: return 3
        case "watchOS"?, "Watch OS"?: return 4
        default: return nil
        }
    }

    static func makeHeader(_ report: CrashReport) -> JSONValue {
        var members: [JSONMember] = []
        func add(_ key: String, _ value: String?) { if let value { members.append(JSONMember(key, .string(value))) } }
        add("app_name", report.process.name)
        add("timestamp", report.captureTime)
        add("app_version", report.app.version)
        add("slice_uuid", mainImage(report)?.uuid?.lowercased())
        add("build_version", report.app.build)
        if let platform = platformNumber(report) { members.append(JSONMember("platform", .integer(platform))) }
        add("bundleID", report.app.bundleID)
        let bugType = report.kind == .jetsam ? "298" : report.kind == .hang ? "288" : "309"
        // cpu, disk-write and launch diagnostics keep 309 with their kind in the `vigil` member.
        members.append(JSONMember("bug_type", .string(bugType)))
        add("os_version", report.system.osDescription)
        add("incident_id", report.incidentID)
        add("name", report.process.name)
        return .object(members)
    }

    static func mainImage(_ report: CrashReport) -> BinaryImage? {
        if let path = report.process.path, let image = report.images.first(where: { $0.path == path }) { return image }
        return report.images.first(where: { $0.origin == .app }) ?? report.images.first
    }

    static func makeBody(_ report: CrashReport) -> JSONValue {
        var members: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue?) { if let value { members.append(JSONMember(key, value)) } }
        func text(_ value: String?) -> JSONValue? { value.map(JSONValue.string) }
        func number(_ value: Int?) -> JSONValue? { value.map { JSONValue.integer($0) } }
        add("procRole", text(report.process.role))
        add("version", .integer(2))
        add("modelCode", text(report.system.deviceModel))
        if report.system.osName != nil || report.system.osBuild != nil {
            var os: [JSONMember] = []
            let train = [report.system.osName, report.system.osVersion].compactMap { $0 }.joined(separator: " ")
            if !train.isEmpty { os.append(JSONMember("train", .string(train))) }
            if let build = report.system.osBuild { os.append(JSONMember("build", .string(build))) }
            add("osVersion", .object(os))
        }
        add("captureTime", text(report.captureTime))
        add("incident", text(report.incidentID))
        add("pid", number(report.process.pid))
        if let translated = report.system.translated { add("translated", .bool(translated)) }
        add("cpuType", text(report.system.cpuType ?? cpuType(for: report.system.architecture)))
        add("procLaunch", text(report.launchTime))
        add("procName", text(report.process.name))
        add("procPath", text(report.process.path))
        var bundle: [JSONMember] = []
        if let version = report.app.version { bundle.append(JSONMember("CFBundleShortVersionString", .string(version))) }
        if let build = report.app.build { bundle.append(JSONMember("CFBundleVersion", .string(build))) }
        if let id = report.app.bundleID { bundle.append(JSONMember("CFBundleIdentifier", .string(id))) }
        if !bundle.isEmpty { add("bundleInfo", .object(bundle)) }
        add("parentProc", text(report.process.parentName))
        add("parentPid", number(report.process.parentPID))
        if let vm = report.vmRegionInfo { add("vmRegionInfo", .string(vm)) }
        if let exception = report.exception {
            var fields: [JSONMember] = []
            let codesText = exception.codesText ?? (exception.codes.isEmpty ? nil
                : exception.codes.map { String(format: "0x%016llx", $0) }.joined(separator: ", "))
            if let codesText { fields.append(JSONMember("codes", .string(codesText))) }
            if !exception.codes.isEmpty { fields.append(JSONMember("rawCodes", .array(exception.codes.map { .integer($0) }))) }
            if let type = exception.type { fields.append(JSONMember("type", .string(type))) }
            if let signal = exception.signal { fields.append(JSONMember("signal", .string(signal))) }
            if let subtype = exception.subtype { fields.append(JSONMember("subtype", .string(subtype))) }
            if let message = exception.message { fields.append(JSONMember("message", .string(message))) }
            add("exception", .object(fields))
            if exception.note == "EXC_CORPSE_NOTIFY" { add("isCorpse", .integer(1)) }
        }
        if let termination = report.termination {
            var fields: [JSONMember] = []
            if let code = termination.code { fields.append(JSONMember("code", .integer(code))) }
            if let namespace = termination.namespace { fields.append(JSONMember("namespace", .string(namespace))) }
            if let indicator = termination.indicator { fields.append(JSONMember("indicator", .string(indicator))) }
            if let by = termination.byProcess { fields.append(JSONMember("byProc", .string(by))) }
            if let pid = termination.byPID { fields.append(JSONMember("byPid", .integer(pid))) }
            if !termination.details.isEmpty { fields.append(JSONMember("reasons", .array(termination.details.map(JSONValue.string)))) }
            add("termination", .object(fields))
        }
        if !report.applicationSpecificInfo.isEmpty {
            let owner = report.process.name ?? "app"
            add("asi", .object([JSONMember(owner, .array(report.applicationSpecificInfo.map(JSONValue.string)))]))
        }
        if let language = report.languageException {
            var fields: [JSONMember] = []
            if let name = language.name { fields.append(JSONMember("name", .string(name))) }
            let type = language.kind == .objectiveC ? "objc-exception" : language.kind == .cplusplus ? "c++-exception" : "swift-error"
            fields.append(JSONMember("type", .string(type)))
            if let reason = language.reason { fields.append(JSONMember("composed_message", .string(reason))) }
            add("exceptionReason", .object(fields))
        }
        if let backtrace = report.lastExceptionBacktrace { add("lastExceptionBacktrace", .array(backtrace.map { encode($0) })) }
        if let triggered = report.triggeredThreadIndex { add("faultingThread", .integer(triggered)) }
        members.append(JSONMember("threads", .array(report.threads.map { encode($0) })))
        members.append(JSONMember("usedImages", .array(report.images.map { encode($0) })))
        var vigil: [JSONMember] = []
        if report.kind != .crash { vigil.append(JSONMember("kind", .string(report.kind.rawValue))) }
        if let ms = report.hang?.durationMs { vigil.append(JSONMember("hangDurationMs", .number(String(ms)))) }
        if let resource = report.resource {
            for (key, value) in [("cpuTimeSeconds", resource.cpuTimeSeconds), ("sampledSeconds", resource.sampledSeconds),
                                 ("bytesWritten", resource.bytesWritten), ("launchDurationMs", resource.launchDurationMs)] {
                if let value, value.isFinite { vigil.append(JSONMember(key, .number(String(value)))) }
            }
        }
        if !vigil.isEmpty { add("vigil", .object(vigil)) }
        for extra in report.extraFields where ["CrashReporter Key", "Beta Identifier"].contains(extra.name) {
            add(extra.name == "CrashReporter Key" ? "crashReporterKey" : "betaIdentifier", .string(extra.value))
        }
        return .object(members)
    }

    static func cpuType(for architecture: String?) -> String? {
        guard let architecture else { return nil }
        if architecture.hasPrefix("arm64") { return "ARM-64" }
        if architecture.hasPrefix("x86_64") { return "X86-64" }
        if architecture.hasPrefix("arm") { return "ARM" }
        if architecture == "i386" { return "X86" }
        return nil
    }

    static func encode(_ thread: ThreadRecord) -> JSONValue {
        var members: [JSONMember] = []
        if thread.crashed { members.append(JSONMember("triggered", .bool(true))) }
        if let id = thread.id { members.append(JSONMember("id", .integer(id))) }
        if let name = thread.name { members.append(JSONMember("name", .string(name))) }
        if !thread.registers.isEmpty {
            var state: [JSONMember] = []
            var general: [JSONValue] = []
            for register in thread.registers {
                if register.name.hasPrefix("x"), let index = Int(register.name.dropFirst()), index == general.count {
                    general.append(.object([JSONMember("value", .integer(register.value))]))
                    continue
                }
                var value = [JSONMember("value", .integer(register.value))]
                if let note = register.note { value.append(JSONMember("description", .string(note))) }
                state.append(JSONMember(register.name, .object(value)))
            }
            if !general.isEmpty { state.insert(JSONMember("x", .array(general)), at: 0) }
            state.insert(JSONMember("flavor", .string(flavor(of: thread, hasGeneral: !general.isEmpty))), at: general.isEmpty ? 0 : 1)
            members.append(JSONMember("threadState", .object(state)))
        }
        if let queue = thread.queue { members.append(JSONMember("queue", .string(queue))) }
        members.append(JSONMember("frames", .array(thread.frames.map { encode($0) })))
        return .object(members)
    }

    /// `ARM_THREAD_STATE64` or `x86_THREAD_STATE`, from the flavor the report named (in JSON
    /// or text form) or from the register names.
    static func flavor(of thread: ThreadRecord, hasGeneral: Bool) -> String {
        if let flavor = thread.registerFlavor {
            if !flavor.contains(" ") { return flavor }
            if flavor.uppercased().contains("X86") { return "x86_THREAD_STATE" }
            if flavor.uppercased().contains("ARM") { return "ARM_THREAD_STATE64" }
        }
        if hasGeneral { return "ARM_THREAD_STATE64" }
        return thread.register("rip") != nil ? "x86_THREAD_STATE" : "ARM_THREAD_STATE64"
    }

    static func encode(_ image: BinaryImage) -> JSONValue {
        var members: [JSONMember] = []
        members.append(JSONMember("source", .string(image.source ?? "P")))
        if let arch = image.arch { members.append(JSONMember("arch", .string(arch))) }
        members.append(JSONMember("base", .integer(image.base)))
        if let size = image.size { members.append(JSONMember("size", .integer(size))) }
        members.append(JSONMember("uuid", .string(image.uuid?.lowercased() ?? "00000000-0000-0000-0000-000000000000")))
        if let path = image.path { members.append(JSONMember("path", .string(path))) }
        members.append(JSONMember("name", .string(image.name)))
        if let bundleID = image.bundleID { members.append(JSONMember("CFBundleIdentifier", .string(bundleID))) }
        if let version = image.version { members.append(JSONMember("CFBundleShortVersionString", .string(version))) }
        return .object(members)
    }

    static func makeJetsamBody(_ report: CrashReport) -> JSONValue {
        var members: [JSONMember] = []
        if let model = report.system.deviceModel { members.append(JSONMember("product", .string(model))) }
        if let incident = report.incidentID { members.append(JSONMember("incident", .string(incident))) }
        if let date = report.captureTime { members.append(JSONMember("date", .string(date))) }
        if let os = report.system.osDescription { members.append(JSONMember("build", .string(os))) }
        let jetsam = report.jetsam ?? JetsamDetails()
        if let pageSize = jetsam.pageSize {
            members.append(JSONMember("memoryStatus", .object([JSONMember("pageSize", .integer(pageSize))])))
        }
        if let largest = jetsam.largestProcess { members.append(JSONMember("largestProcess", .string(largest))) }
        let processes: [JSONValue] = jetsam.killed.map { process in
            var fields: [JSONMember] = []
            if let uuid = process.uuid { fields.append(JSONMember("uuid", .string(uuid.lowercased()))) }
            fields.append(JSONMember("states", .array(process.states.map(JSONValue.string))))
            if let max = process.lifetimeMaxPages { fields.append(JSONMember("lifetimeMax", .integer(max))) }
            if let pages = process.residentPages { fields.append(JSONMember("rpages", .integer(pages))) }
            if let reason = process.reason { fields.append(JSONMember("reason", .string(reason))) }
            if let name = process.name { fields.append(JSONMember("name", .string(name))) }
            return .object(fields)
        }
        members.append(JSONMember("processes", .array(processes)))
        return .object(members)
    }
}
