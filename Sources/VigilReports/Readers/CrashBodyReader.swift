import Foundation

/// Reads the report object of a `bug_type` 309 `.ips` file (and hang reports in that shape)
/// into a ``CrashReport``. Never throws: missing or malformed parts are noted as problems.
enum CrashBodyReader {
    static func read(header headerValue: JSONValue, body bodyValue: JSONValue, limits: ReportLimits) -> CrashReport {
        let body = JSONFields(bodyValue)
        let header = JSONFields(headerValue)
        var report = CrashReport(format: .ips, kind: .crash)
        report.bugType = header.string("bug_type") ?? body.string("bug_type")
        report.incidentID = body.text("incident") ?? header.text("incident_id")

        report.process.name = body.text("procName") ?? header.text("name") ?? header.text("app_name")
        report.process.pid = body.int("pid")
        report.process.path = body.text("procPath")
        report.process.parentName = body.text("parentProc")
        report.process.parentPID = body.int("parentPid")
        report.process.role = body.text("procRole")

        let bundle = body.object("bundleInfo")
        // Never the coalition: a process launched from Terminal or Xcode is in their coalition.
        report.app.bundleID = bundle?.text("CFBundleIdentifier") ?? header.text("bundleID")
        if let coalition = body.text("coalitionName") { report.extraFields.append(ReportField(name: "Coalition", value: coalition)) }
        report.app.version = bundle?.text("CFBundleShortVersionString") ?? header.text("app_version")
        report.app.build = bundle?.text("CFBundleVersion") ?? header.text("build_version")

        if let os = body.object("osVersion") {
            let train = os.text("train").map(TextScanning.osVersion)
            report.system.osName = train?.name
            report.system.osVersion = train?.version
            report.system.osBuild = os.text("build")
        } else if let os = body.text("osVersion") {
            let parsed = TextScanning.osVersion(os)
            (report.system.osName, report.system.osVersion, report.system.osBuild) = (parsed.name, parsed.version, parsed.build)
        }
        report.system.deviceModel = body.text("modelCode") ?? body.text("product")
        report.system.cpuType = body.text("cpuType")
        report.system.translated = body.bool("translated")
        report.captureTime = body.text("captureTime") ?? header.text("timestamp")
        report.launchTime = body.text("procLaunch")
        IPSReader.applyHeader(header, to: &report)

        readImages(body, into: &report, limits: limits)
        readException(body, into: &report)
        readTermination(body, into: &report)
        report.applicationSpecificInfo = applicationSpecificInfo(body)
        report.vmRegionInfo = body.text("vmregioninfo") ?? body.text("vmRegionInfo")
        if var exception = report.exception, exception.faultAddress == nil {
            exception.faultAddress = ExceptionCodes.faultAddress(exception, vmRegionInfo: report.vmRegionInfo)
            report.exception = exception
        }
        readVigilExtension(body, into: &report)
        readLanguageException(body, into: &report)

        if let frames = body.array("lastExceptionBacktrace") {
            report.lastExceptionBacktrace = readFrames(frames, path: body.path("lastExceptionBacktrace"), into: &report, limits: limits)
        }
        readThreads(body, into: &report, limits: limits)
        report.system.architecture = report.images.first(where: { $0.path == report.process.path && $0.path != nil })?.arch
            ?? report.images.first?.arch
        return report
    }

    /// The `vigil` member IPSWriter adds for what Apple's crash layout has no field for: the
    /// kind of a converted MetricKit diagnostic, a hang's duration, resource figures.
    static func readVigilExtension(_ body: JSONFields, into report: inout CrashReport) {
        guard let vigil = body.object("vigil") else { return }
        if let kind = vigil.text("kind").flatMap(ReportKind.init(rawValue:)), kind != .jetsam { report.kind = kind }
        if let ms = vigil.double("hangDurationMs") { report.hang = HangDetails(durationMs: ms) }
        let usage = ResourceUsage(cpuTimeSeconds: vigil.double("cpuTimeSeconds"), sampledSeconds: vigil.double("sampledSeconds"),
                                  bytesWritten: vigil.double("bytesWritten"), launchDurationMs: vigil.double("launchDurationMs"))
        if usage != ResourceUsage() { report.resource = usage }
    }

    // MARK: Images

    static func readImages(_ body: JSONFields, into report: inout CrashReport, limits: ReportLimits) {
        guard let entries = body.array("usedImages") else {
            if body.has("usedImages") { report.note("usedImages", "expected an array; no images read") }
            return
        }
        if entries.count > limits.maxImages {
            report.note("usedImages", "\(entries.count) images; kept the first \(limits.maxImages)")
        }
        for (index, entry) in entries.prefix(limits.maxImages).enumerated() {
            let path = "usedImages[\(index)]"
            // Apple's frames index this array, so a damaged entry still takes its slot.
            guard case .object = entry else {
                report.note(path, "expected an object; kept as an unknown image")
                report.images.append(BinaryImage(name: "???", uuid: nil, base: 0, origin: .unknown))
                continue
            }
            let fields = JSONFields(entry, path: path)
            let imagePath = fields.text("path")
            let name = fields.text("name") ?? imagePath.map { ($0 as NSString).lastPathComponent } ?? "???"
            guard let base = fields.uint64("base") else {
                if fields.has("base") { report.note(fields.path("base"), "not an unsigned integer; image base taken as 0") }
                report.images.append(BinaryImage(name: name, uuid: fields.text("uuid"), arch: fields.text("arch"), base: 0,
                                                 size: fields.uint64("size"), path: imagePath, source: fields.text("source")))
                continue
            }
            if let uuid = fields.text("uuid"), ImageUUID.canonical(uuid) == nil, uuid.contains(where: { $0 != "0" && $0 != "-" }) {
                report.note(fields.path("uuid"), "not a UUID: \(uuid.prefix(48))")
            }
            report.images.append(BinaryImage(
                name: name, uuid: fields.text("uuid"), arch: fields.text("arch"), base: base, size: fields.uint64("size"),
                path: imagePath, bundleID: fields.text("CFBundleIdentifier"),
                version: fields.text("CFBundleShortVersionString"), source: fields.text("source")))
        }
    }

    // MARK: Exception and termination

    static func readException(_ body: JSONFields, into report: inout CrashReport) {
        guard let exception = body.object("exception") else { return }
        var details = ExceptionDetails(type: exception.text("type"), signal: exception.text("signal"),
                                       codesText: exception.text("codes"), subtype: exception.text("subtype"),
                                       message: exception.text("message"))
        if let raw = exception.array("rawCodes") {
            details.codes = raw.compactMap(\.uint64)
        } else if let text = details.codesText {
            details.codes = ExceptionCodes.parse(text)
        }
        if body.bool("isCorpse") == true { details.note = "EXC_CORPSE_NOTIFY" }
        if body.bool("isNonFatal") == true { details.note = "NON-FATAL CONDITION (this is NOT a crash)" }
        if body.bool("isSimulated") == true { details.note = "SIMULATED (this is NOT a crash)" }
        details.faultAddress = ExceptionCodes.faultAddress(details)
        report.exception = details
    }

    static func readTermination(_ body: JSONFields, into report: inout CrashReport) {
        guard let termination = body.object("termination") else { return }
        var details = TerminationDetails(namespace: termination.text("namespace"), indicator: termination.text("indicator"),
                                         byProcess: termination.text("byProc"), byPID: termination.int("byPid"))
        details.code = termination.uint64("code")
        if details.code == nil, let value = termination.value["code"]?.int, value < 0 {
            // Some writers store the 32-bit code as a negative number.
            details.code = UInt64(UInt32(truncatingIfNeeded: value))
        }
        details.details = termination.strings("reasons") + termination.strings("details")
        if let reason = termination.text("reason") { details.details.append(reason) }
        report.termination = details
    }

    /// `asi`: a dictionary from image name to its messages.
    static func applicationSpecificInfo(_ body: JSONFields) -> [String] {
        switch body.value["asi"] {
        case .object(let members)?:
            var lines: [String] = []
            for member in members {
                switch member.value {
                case .array(let values): lines += values.compactMap(\.string)
                case .string(let text): lines.append(text)
                default: continue
                }
            }
            return lines
        case .array(let values)?: return values.compactMap(\.string)
        case .string(let text)?: return [text]
        default: return []
        }
    }

    static func readLanguageException(_ body: JSONFields, into report: inout CrashReport) {
        if let reason = body.object("exceptionReason") {
            let type = reason.text("type") ?? ""
            let kind: LanguageException.Kind = type.contains("objc") ? .objectiveC : (type.contains("c++") || type.contains("cpp")) ? .cplusplus
                : type.contains("swift") ? .swift : .objectiveC
            report.languageException = LanguageException(
                kind: kind, name: reason.text("name") ?? reason.text("class"),
                reason: reason.text("composed_message") ?? reason.text("composedMessage") ?? reason.text("reason"))
            return
        }
        report.languageException = LanguageExceptionText.find(in: report.applicationSpecificInfo)
    }

    // MARK: Threads and frames

    static func readThreads(_ body: JSONFields, into report: inout CrashReport, limits: ReportLimits) {
        guard let threads = body.array("threads") else {
            if body.has("threads") { report.note("threads", "expected an array; no threads read") }
            return
        }
        if threads.count > limits.maxThreads {
            report.note("threads", "\(threads.count) threads; kept the first \(limits.maxThreads)")
        }
        let faulting = body.int("faultingThread")
        for (position, entry) in threads.prefix(limits.maxThreads).enumerated() {
            let path = "threads[\(position)]"
            guard case .object = entry else {
                report.note(path, "expected an object; kept as an empty thread")
                report.threads.append(ThreadRecord(number: position))
                continue
            }
            let fields = JSONFields(entry, path: path)
            var thread = ThreadRecord(number: position, id: fields.uint64("id"), name: fields.text("name"),
                                      queue: fields.text("queue"), crashed: fields.bool("triggered") ?? false)
            if faulting == position { thread.crashed = true }
            if let frames = fields.array("frames") {
                thread.frames = readFrames(frames, path: fields.path("frames"), into: &report, limits: limits)
            } else if fields.has("frames") {
                report.note(fields.path("frames"), "expected an array; no frames read")
            }
            if let state = fields.object("threadState") {
                (thread.registers, thread.registerFlavor) = readRegisters(state)
            }
            report.threads.append(thread)
        }
        if let index = report.threads.firstIndex(where: \.crashed) {
            report.triggeredThreadIndex = index
        } else if let faulting {
            report.note("faultingThread", "index \(faulting) is not a thread of this report")
        }
    }

    static func readFrames(_ entries: [JSONValue], path: String, into report: inout CrashReport,
                           limits: ReportLimits) -> [StackFrame] {
        if entries.count > limits.maxFramesPerThread {
            report.note(path, "\(entries.count) frames; kept the first \(limits.maxFramesPerThread)")
        }
        var frames: [StackFrame] = []
        frames.reserveCapacity(min(entries.count, limits.maxFramesPerThread))
        for (position, entry) in entries.prefix(limits.maxFramesPerThread).enumerated() {
            let fields = JSONFields(entry, path: "\(path)[\(position)]")
            guard let offset = fields.uint64("imageOffset") else {
                report.note(fields.path, "no usable imageOffset; frame skipped")
                continue
            }
            var imageIndex = fields.int("imageIndex")
            if let index = imageIndex, !report.images.indices.contains(index) {
                report.note(fields.path("imageIndex"), "\(index) is not an index of usedImages; image unknown")
                imageIndex = nil
            }
            frames.append(StackFrame(
                imageIndex: imageIndex, imageOffset: offset, symbol: fields.text("symbol"),
                symbolOffset: fields.uint64("symbolLocation"), sourceFile: fields.text("sourceFile"),
                sourceLine: fields.int("sourceLine"), isInlined: fields.bool("inline") ?? false))
        }
        return frames
    }

    /// Registers of an ARM (`x` array plus `fp`, `lr`, `sp`, `pc`, `cpsr`, `far`, `esr`) or x86
    /// (`rax`…`rip`, `rflags`, `cr2`…) thread state, in document order.
    static func readRegisters(_ state: JSONFields) -> ([Register], String?) {
        var registers: [Register] = []
        guard let members = state.value.members else { return ([], nil) }
        for member in members {
            switch member.value {
            case .array(let values) where member.key == "x" || member.key == "r":
                for (index, value) in values.enumerated() {
                    if let number = value["value"]?.uint64 ?? value.uint64 {
                        registers.append(Register(name: "\(member.key)\(index)", value: number, note: value["description"]?.string))
                    }
                }
            case .object:
                if let number = member.value["value"]?.uint64 {
                    registers.append(Register(name: member.key, value: number,
                                              note: member.value["description"]?.string?.trimmingCharacters(in: .whitespaces)))
                }
            case .number:
                if let number = member.value.uint64 { registers.append(Register(name: member.key, value: number)) }
            default:
                continue
            }
        }
        return (registers, state.text("flavor"))
    }
}
