import Foundation

/// Writes a ``CrashReport`` as a MetricKit `MXDiagnosticPayload` JSON with one diagnostic.
///
/// Threads become call stacks; sampled stacks are merged back into a call-stack tree
/// (innermost frame at the root, callers as `subFrames`, counts summed). Crash diagnostics
/// write the image load address in `offsetIntoBinaryTextSegment`, as MetricKit does; other
/// diagnostics write the offset. Symbolicated frames gain `symbol`, `symbolLocation`,
/// `sourceFile` and `sourceLine` members (MetricKit itself has none; readers ignore them).
/// A report read from a MetricKit payload keeps the rest of its payload and metadata.
/// Stacks are cut at ``maxDepth`` frames.
public enum MetricKitWriter {
    /// Deepest stack written; deeper frames are dropped (the tree nests two JSON levels per frame).
    public static let maxDepth = 512

    /// The report as MetricKit JSON.
    public static func write(_ report: CrashReport) -> String {
        write([report])
    }

    /// Several reports as one payload, their diagnostics grouped by kind (the form MetricKit
    /// delivers); the time stamps are the first report's.
    public static func write(_ reports: [CrashReport]) -> String {
        var lists: [(key: String, diagnostics: [JSONValue])] = []
        for report in reports {
            let (key, diagnostic) = diagnostic(for: report)
            if let index = lists.firstIndex(where: { $0.key == key }) {
                lists[index].diagnostics.append(diagnostic)
            } else {
                lists.append((key, [diagnostic]))
            }
        }
        let first = reports.first
        var begin = first?.extraFields.first(where: { $0.name == "timeStampBegin" })?.value ?? first?.captureTime ?? ""
        var end = first?.captureTime ?? begin
        if case .metricKit(let original, _, _)? = first?.original.content {
            begin = original["timeStampBegin"]?.string ?? begin
            end = original["timeStampEnd"]?.string ?? end
        }
        let payload = JSONValue.object([JSONMember("timeStampBegin", .string(begin)), JSONMember("timeStampEnd", .string(end))]
            + lists.map { JSONMember($0.key, .array($0.diagnostics)) })
        // A call-stack tree nests every frame inside its caller's `subFrames`: indenting each
        // level would make the text grow with the square of the stack depth (megabytes for one
        // deep stack), so levels past the first frames are written on one line.
        return JSONWriter(escapesSlashes: true, spacedColons: true).pretty(payload, expandedDepth: Self.expandedDepth) + "\n"
    }

    /// Levels written one member per line; deeper containers stay on one line.
    static let expandedDepth = 16

    /// The diagnostic object for `report` and the payload key of its list. A report read from
    /// MetricKit keeps its diagnostic (metadata, version) with a rebuilt call-stack tree.
    static func diagnostic(for report: CrashReport) -> (String, JSONValue) {
        let listKey = MetricKitReader.diagnosticLists.first(where: { $0.kind == report.kind })?.key ?? "crashDiagnostics"
        if case .metricKit(let original, let key, let index)? = report.original.content, report.format == .metricKit,
           let list = original[key]?.array, list.indices.contains(index) {
            return (key, replacing("callStackTree", in: list[index], with: callStackTree(report)))
        }
        return (listKey, .object([
            JSONMember("version", .string("1.0.0")),
            JSONMember("callStackTree", callStackTree(report)),
            JSONMember("diagnosticMetaData", metaData(report)),
        ]))
    }

    static func replacing(_ key: String, in value: JSONValue, with replacement: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { return value }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = replacement
        } else {
            members.append(JSONMember(key, replacement))
        }
        return .object(members)
    }

    static func metaData(_ report: CrashReport) -> JSONValue {
        var members: [JSONMember] = []
        func add(_ key: String, _ value: String?) { if let value { members.append(JSONMember(key, .string(value))) } }
        add("appBuildVersion", report.app.build ?? "")
        add("appVersion", report.app.version ?? "")
        add("osVersion", report.system.osDescription)
        add("deviceType", report.system.deviceModel)
        add("platformArchitecture", report.system.architecture ?? report.images.first?.arch)
        add("bundleIdentifier", report.app.bundleID)
        for extra in report.extraFields where ["regionFormat", "hangDuration", "totalCPUTime", "totalSampledTime", "writesCaused",
                                                "launchDuration"].contains(extra.name) {
            add(extra.name, extra.value)
        }
        if report.kind == .hang, !members.contains(where: { $0.key == "hangDuration" }), let ms = report.hang?.durationMs {
            add("hangDuration", String(format: "%.2f sec", ms / 1000))
        }
        if report.kind == .crash {
            if let exception = report.exception {
                if let type = exception.type, let number = MachNames.exceptionNumber(type) {
                    members.append(JSONMember("exceptionType", .integer(number)))
                }
                if let code = exception.codes.first ?? Self.kernCode(exception) { members.append(JSONMember("exceptionCode", .integer(code))) }
                if let signal = exception.signal, let number = MachNames.signalNumber(signal) {
                    members.append(JSONMember("signal", .integer(number)))
                }
            }
            if let termination = report.termination {
                let text = [termination.namespace.map { "Namespace \($0)" }, termination.codeHex.map { "Code \($0)" }]
                    .compactMap { $0 }.joined(separator: ", ")
                add("terminationReason", text.isEmpty ? termination.details.first : text)
            }
            // The fault address has no field of its own; Apple's region text starts with it.
            add("virtualMemoryRegionInfo", report.vmRegionInfo ?? report.exception?.faultAddress.map { address in
                "0x\(String(address, radix: 16)) is not in any region."
            })
            if let language = report.languageException {
                var reason: [JSONMember] = []
                if let message = language.reason { reason.append(JSONMember("composedMessage", .string(message))) }
                if let name = language.name { reason.append(JSONMember("exceptionName", .string(name))) }
                // Not Apple's: MetricKit only knows Objective-C exceptions.
                if language.kind != .objectiveC {
                    reason.append(JSONMember("exceptionKind", .string(language.kind == .cplusplus ? "c++" : "swift")))
                }
                members.append(JSONMember("objectiveCexceptionReason", .object(reason)))
            }
        }
        return .object(members)
    }

    /// The Mach code of a bad access written as text (`KERN_INVALID_ADDRESS at 0x…`): 1 or 2.
    static func kernCode(_ exception: ExceptionDetails) -> UInt64? {
        let text = [exception.subtype, exception.codesText].compactMap { $0 }.joined(separator: " ")
        if text.contains("KERN_PROTECTION_FAILURE") { return 2 }
        if text.contains("KERN_INVALID_ADDRESS") { return 1 }
        return nil
    }

    static func callStackTree(_ report: CrashReport) -> JSONValue {
        let perThread = report.extraFields.first(where: { $0.name == "callStackPerThread" }).map { $0.value == "true" } ?? true
        let stacks = report.threads.map { thread -> JSONValue in
            let samples = thread.samples ?? [StackSample(frames: thread.frames, count: 1)]
            var members: [JSONMember] = []
            if perThread { members.append(JSONMember("threadAttributed", .bool(thread.crashed))) }
            // Not Apple's: the thread's name and queue, which MetricKit does not record.
            if let name = thread.name { members.append(JSONMember("threadName", .string(name))) }
            if let queue = thread.queue { members.append(JSONMember("dispatchQueue", .string(queue))) }
            members.append(JSONMember("callStackRootFrames", .array(tree(samples, report: report))))
            return .object(members)
        }
        var all = stacks
        // Not Apple's: where the exception was thrown, as a stack marked `lastExceptionBacktrace`
        // (MetricKit has no place for it; readers that do not know the member see one more stack).
        if let backtrace = report.lastExceptionBacktrace, !backtrace.isEmpty {
            all.append(.object([JSONMember("threadAttributed", .bool(false)), JSONMember("lastExceptionBacktrace", .bool(true)),
                                JSONMember("callStackRootFrames", .array(tree([StackSample(frames: backtrace, count: 1)], report: report)))]))
        }
        return .object([JSONMember("callStacks", .array(all)), JSONMember("callStackPerThread", .bool(perThread))])
    }

    /// Merges sampled stacks (innermost first) into a tree rooted at innermost frames. Inlined
    /// frames ride on the node of the frame they were inlined into, as `inlinedFrames`.
    static func tree(_ samples: [StackSample], report: CrashReport) -> [JSONValue] {
        struct Node { var frame: StackFrame; var inlined: [StackFrame]; var count: Int; var children: [Int] }
        var nodes: [Node] = []
        var roots: [Int] = []
        for sample in samples {
            var siblings = roots
            var parent: Int?
            var pendingInlined: [StackFrame] = []
            var depth = 0
            for frame in sample.frames {
                if frame.isInlined {
                    pendingInlined.append(frame)
                    continue
                }
                depth += 1
                if depth > maxDepth { break }
                let existing = siblings.first(where: {
                    nodes[$0].frame.imageIndex == frame.imageIndex && nodes[$0].frame.imageOffset == frame.imageOffset
                })
                let index: Int
                if let existing {
                    index = existing
                    nodes[index].count += sample.count
                } else {
                    nodes.append(Node(frame: frame, inlined: pendingInlined, count: sample.count, children: []))
                    index = nodes.count - 1
                    if let parent { nodes[parent].children.append(index) } else { roots.append(index) }
                }
                pendingInlined.removeAll()
                parent = index
                siblings = nodes[index].children
            }
        }
        // Children are created after their parents: building from the end sees children first.
        var built = [JSONValue?](repeating: nil, count: nodes.count)
        for index in nodes.indices.reversed() {
            var members = frameMembers(nodes[index].frame, count: nodes[index].count, report: report)
            if !nodes[index].inlined.isEmpty {
                members.append(JSONMember("inlinedFrames", .array(nodes[index].inlined.map { inlined in
                    .object(symbolMembers(inlined))
                })))
            }
            if !nodes[index].children.isEmpty {
                members.append(JSONMember("subFrames", .array(nodes[index].children.compactMap { built[$0] })))
            }
            built[index] = .object(members)
            for child in nodes[index].children { built[child] = nil }
        }
        return roots.compactMap { built[$0] }
    }

    static func symbolMembers(_ frame: StackFrame) -> [JSONMember] {
        var members: [JSONMember] = []
        if let symbol = frame.symbol {
            members.append(JSONMember("symbol", .string(symbol)))
            if let offset = frame.symbolOffset { members.append(JSONMember("symbolLocation", .integer(offset))) }
            if let file = frame.sourceFile { members.append(JSONMember("sourceFile", .string(file))) }
            if let line = frame.sourceLine { members.append(JSONMember("sourceLine", .integer(line))) }
        }
        return members
    }

    static func frameMembers(_ frame: StackFrame, count: Int, report: CrashReport) -> [JSONMember] {
        var members: [JSONMember] = []
        let image = report.image(of: frame)
        if let uuid = image?.uuid { members.append(JSONMember("binaryUUID", .string(uuid))) }
        let field = report.kind == .crash ? (image?.base ?? 0) : frame.imageOffset
        members.append(JSONMember("offsetIntoBinaryTextSegment", .integer(field)))
        members.append(JSONMember("sampleCount", .integer(count)))
        members.append(JSONMember("binaryName", .string(image?.name ?? "???")))
        members.append(JSONMember("address", .integer(report.address(of: frame))))
        return members + symbolMembers(frame)
    }
}
