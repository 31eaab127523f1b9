import Foundation

/// Reads MetricKit `MXDiagnosticPayload` JSON (`jsonRepresentation()`): crash, hang,
/// CPU-exception, disk-write-exception and app-launch diagnostics, one ``CrashReport`` each.
///
/// Call-stack trees: each `callStackRootFrames` entry is the innermost frame of a stack, its
/// `subFrames` its callers, and `sampleCount` how many samples passed through it. Every
/// root-to-leaf path becomes a ``StackSample`` with the leaf's count; the thread's
/// ``ThreadRecord/frames`` is the most sampled path. With `callStackPerThread` each call stack
/// is a thread (`threadAttributed` marks the crashed or hung one); without it the stacks are
/// samples from any thread and become one pseudo-thread each.
///
/// Offsets: in crash diagnostics MetricKit writes the image's load address in
/// `offsetIntoBinaryTextSegment` (seen in real iOS 14 payloads), so the offset is
/// `address - offsetIntoBinaryTextSegment`; other diagnostics carry genuine offsets. A value
/// above 4 GiB that is not above the address is read as a load address in any diagnostic.
///
/// Trees nested deeper than ``ReportLimits/maxMetricKitJSONDepth`` JSON levels are cut there
/// and the report is marked partial. Thread-safe; cost linear in the input.
public enum MetricKitReader {
    /// The payload keys holding diagnostic lists, and the kind of report each gives.
    static let diagnosticLists: [(key: String, kind: ReportKind)] = [
        ("crashDiagnostics", .crash), ("hangDiagnostics", .hang), ("cpuExceptionDiagnostics", .cpuException),
        ("diskWriteExceptionDiagnostics", .diskWriteException), ("appLaunchDiagnostics", .launch),
    ]

    /// Reads every diagnostic of a payload, or of a JSON array of payloads.
    public static func read(_ data: Data, limits: ReportLimits = .standard) throws(ReportError) -> [CrashReport] {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        let parsed: JSONParseResult
        do {
            parsed = try JSONParser.parse(data, options: JSONParseOptions(
                maxDepth: limits.maxMetricKitJSONDepth, recoversTruncation: true, skipsTooDeep: true))
        } catch {
            throw .malformedJSON(part: "MetricKit payload", error)
        }
        let payloads: [(JSONValue, String)]
        switch parsed.value {
        case .array(let elements): payloads = elements.enumerated().map { ($1, "[\($0)]") }
        case .object:
            if let list = parsed.value["payloads"]?.array {
                payloads = list.enumerated().map { ($1, "payloads[\($0)]") }
            } else {
                payloads = [(parsed.value, "")]
            }
        default: throw .unrecognizedFormat("a MetricKit payload is a JSON object")
        }
        var reports: [CrashReport] = []
        for (payload, prefix) in payloads {
            reports += read(payload: payload, prefix: prefix, limits: limits, remaining: limits.maxReports - reports.count)
            if reports.count >= limits.maxReports { break }
        }
        guard !reports.isEmpty else { throw .noReports("the payload has no crash, hang, CPU, disk-write or launch diagnostics") }
        if parsed.truncated || parsed.skippedCount > 0 {
            for index in reports.indices {
                if parsed.truncated { reports[index].note("payload", "the JSON ends early (truncated); read up to the last complete value") }
                for path in parsed.skippedPaths where path.hasPrefix(prefixOf(reports[index])) {
                    reports[index].note(path, "call-stack tree nested deeper than the limit; the deeper frames are cut")
                }
            }
        }
        return reports
    }

    private static func prefixOf(_ report: CrashReport) -> String {
        guard case .metricKit(_, let key, let index)? = report.original.content else { return "" }
        return "\(key)[\(index)]"
    }

    static func read(payload: JSONValue, prefix: String, limits: ReportLimits, remaining: Int) -> [CrashReport] {
        var reports: [CrashReport] = []
        let payloadFields = JSONFields(payload, path: prefix)
        for (key, kind) in diagnosticLists {
            guard let list = payloadFields.array(key) else { continue }
            for (index, diagnostic) in list.enumerated() {
                guard reports.count < remaining else { return reports }
                var report = readDiagnostic(JSONFields(diagnostic, path: payloadFields.path(key) + "[\(index)]"), kind: kind,
                                            limits: limits)
                report.captureTime = payloadFields.text("timeStampEnd")
                if let begin = payloadFields.text("timeStampBegin") {
                    report.extraFields.append(ReportField(name: "timeStampBegin", value: begin))
                }
                report.original.content = .metricKit(payload: payload, listKey: key, index: index)
                reports.append(report)
            }
        }
        return reports
    }

    static func readDiagnostic(_ diagnostic: JSONFields, kind: ReportKind, limits: ReportLimits) -> CrashReport {
        var report = CrashReport(format: .metricKit, kind: kind)
        let meta = diagnostic.object("diagnosticMetaData") ?? JSONFields(.object([]), path: diagnostic.path("diagnosticMetaData"))
        report.app.version = meta.text("appVersion")
        report.app.build = meta.text("appBuildVersion")
        report.app.bundleID = meta.text("bundleIdentifier")
        report.process.pid = meta.int("pid")
        if let os = meta.text("osVersion") {
            let parsed = TextScanning.osVersion(os)
            (report.system.osName, report.system.osVersion, report.system.osBuild) = (parsed.name, parsed.version, parsed.build)
        }
        report.system.deviceModel = meta.text("deviceType")
        report.system.architecture = meta.text("platformArchitecture")
        for key in ["regionFormat", "isTestFlightApp", "lowPowerModeEnabled", "version"] {
            let value = key == "version" ? diagnostic.text(key) : meta.text(key)
            if let value { report.extraFields.append(ReportField(name: key, value: value)) }
        }

        switch kind {
        case .crash:
            var exception = ExceptionDetails()
            if let type = meta.int("exceptionType") { exception.type = MachNames.exceptionName(type) ?? "exception \(type)" }
            if let signal = meta.int("signal") { exception.signal = MachNames.signalName(signal) ?? "signal \(signal)" }
            if let code = meta.uint64("exceptionCode") {
                exception.codes = [code]
                exception.codesText = "0x" + String(code, radix: 16)
            }
            if exception.type != nil || exception.signal != nil { report.exception = exception }
            if let reason = meta.text("terminationReason") {
                var termination = TerminationDetails()
                AppleTextParser.parseTerminationReason([reason], into: &termination)
                report.termination = termination
            }
            report.vmRegionInfo = meta.text("virtualMemoryRegionInfo")
            if var exception = report.exception, exception.type == "EXC_BAD_ACCESS" {
                if let info = report.vmRegionInfo {
                    // "0x10 is not in any region." names the faulting address.
                    exception.faultAddress = TextScanning.integer(Substring(info.prefix(while: { !$0.isWhitespace })))
                }
                // The Mach code of a bad access: 1 KERN_INVALID_ADDRESS, 2 KERN_PROTECTION_FAILURE.
                if let code = exception.codes.first, code == 1 || code == 2 {
                    exception.subtype = (code == 1 ? "KERN_INVALID_ADDRESS" : "KERN_PROTECTION_FAILURE")
                        + (exception.faultAddress.map { " at 0x" + String(format: "%016llx", $0) } ?? "")
                }
                report.exception = exception
            }
            if let reason = meta.object("objectiveCexceptionReason") ?? meta.object("exceptionReason") {
                report.languageException = LanguageException(
                    kind: reason.text("exceptionKind") == "c++" ? .cplusplus : reason.text("exceptionKind") == "swift" ? .swift : .objectiveC,
                    name: reason.text("exceptionName") ?? reason.text("className"),
                    reason: reason.text("composedMessage"))
            }
        case .hang:
            if let duration = meta.text("hangDuration") {
                report.hang = HangDetails(durationMs: TextScanning.durationMs(duration))
                report.extraFields.append(ReportField(name: "hangDuration", value: duration))
            }
        case .cpuException:
            var usage = ResourceUsage()
            if let cpu = meta.text("totalCPUTime") {
                usage.cpuTimeSeconds = TextScanning.durationMs(cpu).map { $0 / 1000 }
                report.extraFields.append(ReportField(name: "totalCPUTime", value: cpu))
            }
            if let sampled = meta.text("totalSampledTime") {
                usage.sampledSeconds = TextScanning.durationMs(sampled).map { $0 / 1000 }
                report.extraFields.append(ReportField(name: "totalSampledTime", value: sampled))
            }
            report.resource = usage
        case .diskWriteException:
            if let writes = meta.text("writesCaused") {
                report.resource = ResourceUsage(bytesWritten: TextScanning.bytes(writes))
                report.extraFields.append(ReportField(name: "writesCaused", value: writes))
            }
        case .launch:
            if let launch = meta.text("launchDuration") {
                report.resource = ResourceUsage(launchDurationMs: TextScanning.durationMs(launch))
                report.extraFields.append(ReportField(name: "launchDuration", value: launch))
            }
        case .jetsam:
            break
        }

        guard let tree = diagnostic.object("callStackTree") else {
            report.note(diagnostic.path("callStackTree"), "missing; no stacks read")
            return report
        }
        let perThread = tree.bool("callStackPerThread") ?? true
        report.extraFields.append(ReportField(name: "callStackPerThread", value: perThread ? "true" : "false"))
        var registry = ImageRegistry(quirk: kind == .crash, architecture: report.system.architecture)
        for (index, stack) in (tree.array("callStacks") ?? []).prefix(limits.maxThreads).enumerated() {
            let fields = JSONFields(stack, path: tree.path("callStacks") + "[\(index)]")
            var thread = ThreadRecord(number: index, crashed: fields.bool("threadAttributed") ?? false)
            if !perThread { thread.name = "sampled stacks" }
            thread.name = fields.text("threadName") ?? thread.name
            thread.queue = fields.text("dispatchQueue")
            let samples = walk(fields.array("callStackRootFrames") ?? [], path: fields.path("callStackRootFrames"),
                               registry: &registry, report: &report, limits: limits)
            if fields.bool("lastExceptionBacktrace") == true {
                report.lastExceptionBacktrace = samples.first?.frames
                continue
            }
            thread.number = report.threads.count
            thread.samples = samples
            thread.frames = samples.max(by: { $0.count < $1.count })?.frames ?? []
            report.threads.append(thread)
        }
        report.images = registry.images
        for (path, message) in registry.problems { report.note(path, message) }
        report.triggeredThreadIndex = report.threads.firstIndex(where: \.crashed)
        if report.languageException == nil {
            report.languageException = LanguageExceptionText.find(in: report.applicationSpecificInfo)
        }
        return report
    }

    /// Every root-to-leaf path of a call-stack tree, innermost frame first, with the leaf's
    /// sample count. Iterative, bounded by ``ReportLimits/maxCallTreeNodes`` and
    /// ``ReportLimits/maxFramesPerThread``.
    static func walk(_ roots: [JSONValue], path: String, registry: inout ImageRegistry, report: inout CrashReport,
                     limits: ReportLimits) -> [StackSample] {
        struct Node { var frames: [StackFrame]; var parent: Int?; var count: Int; var depth: Int }
        var nodes: [Node] = []
        var leaves: [Int] = []
        var pending: [(value: JSONValue, parent: Int?, path: String, depth: Int)] =
            roots.enumerated().reversed().map { ($1, nil, "\(path)[\($0)]", 1) }
        var cutDepth = false
        while let (value, parent, nodePath, depth) = pending.popLast() {
            guard nodes.count < limits.maxCallTreeNodes else {
                report.note(path, "more than \(limits.maxCallTreeNodes) call-tree nodes; the rest are skipped")
                break
            }
            let fields = JSONFields(value, path: nodePath)
            guard var frame = registry.frame(fields) else {
                continue
            }
            // Symbols written by MetricKitWriter after symbolication.
            frame.symbol = fields.text("symbol")
            frame.symbolOffset = fields.uint64("symbolLocation")
            frame.sourceFile = fields.text("sourceFile")
            frame.sourceLine = fields.int("sourceLine")
            var frames = (fields.array("inlinedFrames") ?? []).prefix(64).map { inlined in
                StackFrame(imageIndex: frame.imageIndex, imageOffset: frame.imageOffset, imageName: frame.imageName,
                           symbol: inlined["symbol"]?.string, symbolOffset: inlined["symbolLocation"]?.uint64,
                           sourceFile: inlined["sourceFile"]?.string, sourceLine: inlined["sourceLine"]?.int, isInlined: true)
            }
            frames.append(frame)
            let count = max(fields.int("sampleCount") ?? 1, 0)
            nodes.append(Node(frames: frames, parent: parent, count: count, depth: depth))
            let index = nodes.count - 1
            let children = fields.array("subFrames") ?? []
            if children.isEmpty || depth >= limits.maxFramesPerThread {
                if !children.isEmpty { cutDepth = true }
                leaves.append(index)
                continue
            }
            for (childIndex, child) in children.enumerated().reversed() {
                pending.append((child, index, fields.path("subFrames") + "[\(childIndex)]", depth + 1))
            }
        }
        if cutDepth { report.note(path, "a stack is deeper than \(limits.maxFramesPerThread) frames; the outer frames are cut") }
        var samples: [StackSample] = []
        for leaf in leaves.prefix(limits.maxSamplesPerStack) {
            var frames: [StackFrame] = []
            var cursor: Int? = leaf
            while let current = cursor {
                frames.append(contentsOf: nodes[current].frames.reversed())
                cursor = nodes[current].parent
            }
            samples.append(StackSample(frames: frames.reversed(), count: nodes[leaf].count))
        }
        if leaves.count > limits.maxSamplesPerStack {
            report.note(path, "\(leaves.count) distinct stacks; kept \(limits.maxSamplesPerStack)")
        }
        return samples
    }
}

/// Collects MetricKit's per-frame image facts into one image per binary.
struct ImageRegistry {
    let quirk: Bool
    let architecture: String?
    var images: [BinaryImage] = []
    var indexByKey: [String: Int] = [:]
    var problems: [(String, String)] = []

    init(quirk: Bool, architecture: String?) {
        self.quirk = quirk
        self.architecture = architecture
    }

    /// The frame a tree node describes; nil (with a problem) when it has no offset or address.
    mutating func frame(_ fields: JSONFields) -> StackFrame? {
        let name = fields.text("binaryName")
        let uuid = fields.text("binaryUUID")
        let address = fields.uint64("address")
        let field = fields.uint64("offsetIntoBinaryTextSegment")
        var offset: UInt64
        var base: UInt64?
        switch (field, address) {
        case let (value?, address?) where value <= address && (quirk || value >= 1 << 32):
            base = value
            offset = address - value
        case let (value?, address?):
            offset = value
            if value <= address { base = address - value } else {
                note(fields.path, "offsetIntoBinaryTextSegment \(value) is larger than the address \(address)")
            }
        case let (value?, nil):
            offset = value
        case let (nil, address?):
            offset = address
        case (nil, nil):
            note(fields.path, "frame without address or offset skipped")
            return nil
        }
        if uuid.flatMap(ImageUUID.normalized) == nil, name == nil || name == "???" {
            // No image: keep the absolute address.
            return StackFrame(imageIndex: nil, imageOffset: address ?? offset)
        }
        let key = uuid.flatMap(ImageUUID.normalized) ?? "name:" + (name ?? "???")
        var imageIndex: Int? = indexByKey[key]
        if imageIndex == nil, images.count < 16_384 {
            images.append(BinaryImage(name: name ?? "???", uuid: uuid, arch: architecture, base: base ?? 0))
            imageIndex = images.count - 1
            indexByKey[key] = imageIndex
        } else if let index = imageIndex, let base, images[index].base == 0 {
            images[index].base = base
        }
        if field == nil, address != nil {
            // Only an absolute address: relative to the image only once its base is known.
            if let index = imageIndex, images[index].base > 0, let address, address >= images[index].base {
                offset = address - images[index].base
            } else {
                return StackFrame(imageIndex: nil, imageOffset: offset, imageName: name)
            }
        }
        return StackFrame(imageIndex: imageIndex, imageOffset: offset, imageName: nil)
    }

    mutating func note(_ path: String, _ message: String) {
        if problems.count < 50 { problems.append((path, message)) }
    }
}
