import Foundation
import VigilCore

/// Reads Apple's text crash reports (`.crash`): the layout devices wrote up to iOS 14 and
/// that Xcode, Console and `.ips` translation write today, for iOS, macOS and the simulators.
///
/// Sections may come in any order and may be missing; every frame's image is resolved by
/// address against `Binary Images` after the whole file is read (by name when addresses do
/// not fall in any image). Lines that fit no section are noted as problems with their line
/// number and skipped. Throws only when nothing of a report is found.
///
/// Thread-safe (no state); cost linear in the input.
public enum AppleTextReader {
    /// Reads one text report.
    public static func read(_ data: Data, limits: ReportLimits = .standard) throws(ReportError) -> CrashReport {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = String(first.dropFirst()) }
        return try read(lines: lines, limits: limits)
    }

    static func read(lines: [String], limits: ReportLimits) throws(ReportError) -> CrashReport {
        var parser = AppleTextParser(lines: lines, limits: limits)
        try parser.run()
        var report = parser.report
        report.original.content = .text(lines: lines)
        return report
    }

    /// Reads every report of a text file. KSCrash's text follows the original crash with
    /// `Handler crashed while reporting:` and the crash of its own handler: that part is a
    /// second report (``CrashReport/isRecrash``), with the first one's header and binary images.
    public static func readAll(_ data: Data, limits: ReportLimits = .standard) throws(ReportError) -> [CrashReport] {
        guard data.count <= limits.maxBytes else { throw .tooLarge(bytes: data.count, limit: limits.maxBytes) }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = String(first.dropFirst()) }
        guard let split = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == AppleTextParser.handlerCrashMarker }) else {
            return [try read(lines: lines, limits: limits)]
        }
        let originalLines = Array(lines[..<split])
        var first = try read(lines: originalLines, limits: limits)
        // The handler's part has no header and no images: give it the original's.
        var handlerLines = Array(lines[(split + 1)...])
        if let imagesStart = originalLines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Binary Images:") }) {
            let imageLines = originalLines[imagesStart...].prefix(while: { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
            handlerLines += [""] + imageLines
        }
        guard var second = try? read(lines: handlerLines, limits: limits) else {
            first.note("line \(split + 1)", "the handler's crash after \"\(AppleTextParser.handlerCrashMarker)\" could not be read")
            return [first]
        }
        second.isRecrash = true
        second.incidentID = second.incidentID ?? first.incidentID
        second.process = first.process
        second.app = first.app
        second.system = first.system
        second.captureTime = second.captureTime ?? first.captureTime
        second.launchTime = second.launchTime ?? first.launchTime
        first.documentIndex = 0
        second.documentIndex = 1
        return [first, second]
    }
}

/// The line-by-line state of ``AppleTextReader``.
struct AppleTextParser {
    enum Section {
        case header
        case applicationSpecific
        case continuation(String)
        case lastExceptionBacktrace
        case thread(Int)
        case threadState(Int?)
        case binaryImages
        case skipped
        /// Memory dumps and JSON that KSCrash appends (`Extra Information:`, `Stack Dump`…): skipped up
        /// to the next section header.
        case extraInformation
        /// A further `Application Specific Backtrace` after the first: its frames are skipped.
        case furtherBacktrace
    }

    /// The line KSCrash writes before the crash of its own handler.
    static let handlerCrashMarker = "Handler crashed while reporting:"

    /// Section titles KSCrash appends after `Binary Images` whose contents are dumps or JSON.
    static let extraSectionPrefixes = ["Extra Information:", "Stack Dump (", "Notable Addresses:", "Application Stats:",
                                       "Object referenced by NSException:", "Last deallocated NSException", "Referenced object:",
                                       "CrashDoctor Diagnosis:", "Recrash Diagnosis:", "Custom Backtrace:"]

    /// Header keys that end a multi-line value (anything else continues it).
    static let knownKeys: Set<String> = [
        "Incident Identifier", "CrashReporter Key", "Beta Identifier", "Hardware Model", "Model", "Process", "Path",
        "Identifier", "Version", "AppStoreTools", "AppVariant", "Code Type", "Role", "Parent Process", "Coalition",
        "Responsible Process", "Responsible", "Date/Time", "Launch Time", "OS Version", "Release Type", "Baseband Version",
        "Report Version", "Exception Type", "Exception Codes", "Exception Subtype", "Exception Message", "Exception Note",
        "Exception Reason", "Termination Reason", "Termination Description", "Termination Signal", "Terminating Process",
        "Triggered by Thread", "Crashed Thread", "Highlighted by Thread", "VM Region Info", "Kernel Triage",
        "Application Specific Information", "Last Exception Backtrace", "Binary Images", "External Modification Summary",
        "VM Region Summary", "Error Formulating Crash Report", "Sleep/Wake UUID", "Time Awake Since Boot",
        "System Integrity Protection", "Anonymous UUID", "User ID", "Event", "Duration", "Steps", "Hardware model",
        "Active cpus", "Memory size", "Boot args", "Fan speed", "Data Source", "Shared Cache", "Time Since Boot",
        "Reason", "OS version", "Architecture", "Report Version", "Exception Reason", "Crashing on exception",
        "CPU Time", "Sampled Time", "Writes Caused", "Launch Duration",
    ]

    let lines: [String]
    let limits: ReportLimits
    var report = CrashReport(format: .appleText, kind: .crash)
    var section = Section.header
    var continuationText: [String] = []
    var triggeredNumber: Int?
    var pendingThreadNames: [Int: String] = [:]
    var pendingThreadQueues: [Int: String] = [:]
    var rawFrames: [(thread: Int?, line: Int, frame: TextFrameLine)] = []
    var frameCounts: [Int: Int] = [:]
    var threadStates: [(number: Int?, registers: [Register], flavor: String?)] = []
    var imageLines: [TextImageLine] = []
    var recognized = 0
    /// Lines that fit nowhere, summarised in one problem at the end: count and the first one.
    var unrecognizedCount = 0
    var firstUnrecognized: (line: Int, text: String)?
    var strayFrameCount = 0
    var firstStrayFrame: Int?
    /// Whether an `Application Specific Backtrace` was taken as the exception backtrace.
    var sawApplicationBacktrace = false

    init(lines: [String], limits: ReportLimits) {
        self.lines = lines
        self.limits = limits
    }

    mutating func run() throws(ReportError) {
        for (index, line) in lines.enumerated() {
            handle(line, number: index + 1)
        }
        finishContinuation()
        if let first = firstUnrecognized {
            report.note("line \(first.line)", unrecognizedCount == 1 ? "unrecognized line skipped: \(first.text)"
                : "\(unrecognizedCount) unrecognized lines skipped, the first: \(first.text)")
        }
        if let first = firstStrayFrame {
            report.note("line \(first)", strayFrameCount == 1 ? "backtrace line outside a thread; skipped"
                : "\(strayFrameCount) backtrace lines outside a thread; skipped")
        }
        guard recognized > 0 else {
            let first = lines.first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) ?? ""
            throw .malformedText(line: 1, reason: "no crash report fields, threads or binary images found (starts with \"\(first.prefix(60))\")")
        }
        resolve()
    }

    // MARK: Lines

    mutating func handle(_ line: String, number: Int) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("Thread "), handleThreadHeader(trimmed, line: number) { return }
        if trimmed == "Binary Images:" || trimmed.hasPrefix("Binary Images:") || trimmed.hasPrefix("Binary images description") {
            finishContinuation()
            section = .binaryImages
            recognized += 1
            return
        }
        if trimmed == "Last Exception Backtrace:" {
            finishContinuation()
            section = .lastExceptionBacktrace
            report.lastExceptionBacktrace = report.lastExceptionBacktrace ?? []
            recognized += 1
            return
        }
        if trimmed.hasPrefix("Application Specific Backtrace"), trimmed.hasSuffix(":") {
            // macOS writes where an uncaught exception was thrown here; the first one is the
            // exception's backtrace, as `Last Exception Backtrace` on iOS.
            finishContinuation()
            recognized += 1
            if sawApplicationBacktrace || report.lastExceptionBacktrace?.isEmpty == false {
                section = .furtherBacktrace
            } else {
                sawApplicationBacktrace = true
                section = .lastExceptionBacktrace
                report.lastExceptionBacktrace = []
            }
            return
        }
        if Self.extraSectionPrefixes.contains(where: { trimmed.hasPrefix($0) }) {
            finishContinuation()
            section = .extraInformation
            recognized += 1
            return
        }
        if trimmed == "Application Specific Information:" {
            finishContinuation()
            section = .applicationSpecific
            recognized += 1
            return
        }
        if trimmed == "EOF" { finishContinuation(); section = .skipped; return }

        switch section {
        case .binaryImages:
            if trimmed.isEmpty { section = .header; return }
            if let image = TextImageLine.parse(Substring(trimmed)) {
                if imageLines.count < limits.maxImages { imageLines.append(image) } else if imageLines.count == limits.maxImages {
                    report.note("line \(number)", "more than \(limits.maxImages) images; the rest are skipped")
                    imageLines.append(image)
                }
                return
            }
            section = .header
        case .thread(let threadNumber):
            if trimmed.isEmpty { section = .header; return }
            if let frame = TextFrameLine.parse(Substring(line)) {
                appendFrame(frame, thread: threadNumber, line: number)
                return
            }
            if trimmed.first?.isASCIIDigit == true {
                report.note("line \(number)", "malformed backtrace line skipped: \(trimmed.prefix(60))")
                return
            }
            section = .header
        case .lastExceptionBacktrace:
            if trimmed.isEmpty {
                if report.lastExceptionBacktrace?.isEmpty == false || !rawFrames.contains(where: { $0.thread == nil }) { section = .header }
                return
            }
            if let frame = TextFrameLine.parse(Substring(line)) {
                appendFrame(frame, thread: nil, line: number)
                return
            }
            if trimmed.hasPrefix("("), trimmed.hasSuffix(")") {
                // The old one-line form: (0x18… 0x18… …).
                for (position, word) in trimmed.dropFirst().dropLast().split(separator: " ").enumerated() {
                    guard let address = TextScanning.hex(word) else { continue }
                    appendFrame(TextFrameLine(number: position, imageName: "", address: address, inlined: false), thread: nil, line: number)
                }
                section = .header
                return
            }
            section = .header
        case .threadState(let threadNumber):
            if trimmed.isEmpty { section = .header; return }
            if let registers = Self.registers(in: trimmed), !registers.isEmpty {
                if let last = threadStates.indices.last { threadStates[last].registers += registers }
                _ = threadNumber
                return
            }
            section = .header
        case .applicationSpecific:
            if trimmed.isEmpty { section = .header; return }
            if let key = Self.key(of: trimmed), Self.knownKeys.contains(key) {
                section = .header
            } else {
                report.applicationSpecificInfo.append(trimmed)
                return
            }
        case .continuation(let key):
            if trimmed.isEmpty {
                finishContinuation()
                section = .header
                return
            }
            if let next = Self.key(of: trimmed), Self.knownKeys.contains(next), next != key {
                finishContinuation()
                section = .header
            } else {
                continuationText.append(trimmed)
                return
            }
        case .skipped:
            if let key = Self.key(of: trimmed), Self.knownKeys.contains(key) { section = .header } else { return }
        case .extraInformation:
            // Dumps and JSON run up to the next thread, image list or known header.
            if let key = Self.key(of: trimmed), Self.knownKeys.contains(key) { section = .header } else { return }
        case .furtherBacktrace:
            if trimmed.isEmpty { section = .header; return }
            if TextFrameLine.parse(Substring(line)) != nil { return }
            section = .header
        case .header:
            break
        }
        handleHeaderLine(trimmed, line: number)
    }

    /// `Thread 3 name:  …`, `Thread 3:`, `Thread 3 Crashed:`, `Thread 0 Crashed:: Dispatch queue: …`,
    /// `Thread 0 crashed with ARM Thread State (64-bit):`. Returns false for other lines.
    mutating func handleThreadHeader(_ line: String, line lineNumber: Int) -> Bool {
        let afterWord = line.dropFirst("Thread ".count)
        let digits = afterWord.prefix(while: \.isASCIIDigit)
        guard !digits.isEmpty, digits.count <= 6, let number = Int(digits) else { return false }
        var rest = afterWord.dropFirst(digits.count)
        finishContinuation()
        if rest.hasPrefix(" name:") {
            let value = rest.dropFirst(" name:".count).trimmingCharacters(in: .whitespaces)
            assignName(value, to: number)
            section = .header
            recognized += 1
            return true
        }
        if rest.hasPrefix(" crashed with") || rest.hasPrefix(" Crashed with") || rest.contains("Thread State") {
            let flavor = rest.drop(while: { $0 != "w" }).dropFirst("with ".count).trimmingCharacters(in: CharacterSet(charactersIn: ": "))
            threadStates.append((number, [], flavor.isEmpty ? nil : flavor))
            section = .threadState(number)
            recognized += 1
            return true
        }
        var crashed = false
        if rest.hasPrefix(" Crashed") {
            crashed = true
            rest = rest.dropFirst(" Crashed".count)
        } else if rest.hasPrefix(" Highlighted") {
            rest = rest.dropFirst(" Highlighted".count)
        }
        guard rest.hasPrefix(":") else { return false }
        let label = rest.drop(while: { $0 == ":" }).trimmingCharacters(in: .whitespaces)
        if !label.isEmpty { assignName(label, to: number) }
        if crashed { triggeredNumber = triggeredNumber ?? number }
        if let existing = report.threads.firstIndex(where: { $0.number == number }) {
            report.note("line \(lineNumber)", "thread \(number) appears twice; frames appended to the first")
            if crashed { report.threads[existing].crashed = true }
        } else if report.threads.count < limits.maxThreads {
            report.threads.append(ThreadRecord(number: number, crashed: crashed))
        } else {
            report.note("line \(lineNumber)", "more than \(limits.maxThreads) threads; thread \(number) skipped")
            section = .skipped
            return true
        }
        section = .thread(number)
        recognized += 1
        return true
    }

    mutating func assignName(_ value: String, to number: Int) {
        if value.hasPrefix("Dispatch queue:") {
            pendingThreadQueues[number] = value.dropFirst("Dispatch queue:".count).trimmingCharacters(in: .whitespaces)
        } else if !value.isEmpty {
            pendingThreadNames[number] = value
        }
    }

    mutating func appendFrame(_ frame: TextFrameLine, thread: Int?, line: Int) {
        let key = thread ?? -1
        let count = frameCounts[key, default: 0]
        frameCounts[key] = count + 1
        if count >= limits.maxFramesPerThread || rawFrames.count >= 2_000_000 {
            if count == limits.maxFramesPerThread {
                report.note("line \(line)", "more than \(limits.maxFramesPerThread) frames; the rest are skipped")
            }
            return
        }
        rawFrames.append((thread, line, frame))
        recognized += 1
    }

    mutating func handleHeaderLine(_ trimmed: String, line number: Int) {
        guard !trimmed.isEmpty else { return }
        guard let key = Self.key(of: trimmed) else {
            if TextFrameLine.parse(Substring(trimmed)) != nil {
                strayFrameCount += 1
                if firstStrayFrame == nil { firstStrayFrame = number }
            } else if !trimmed.hasPrefix("---") && !trimmed.hasPrefix("===") && trimmed != "(" && trimmed != ")"
                        && trimmed != "Application main thread deadlocked" {
                unrecognizedCount += 1
                if firstUnrecognized == nil { firstUnrecognized = (number, String(trimmed.prefix(60))) }
            } else if trimmed == "Application main thread deadlocked" {
                report.applicationSpecificInfo.append(trimmed)
            }
            return
        }
        let value = trimmed.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        recognized += 1
        switch key {
        case "Incident Identifier": report.incidentID = value
        case "Hardware Model", "Model": report.system.deviceModel = value.components(separatedBy: ", ").first
        case "Process":
            let (name, pid) = TextScanning.nameAndPID(value)
            report.process.name = name
            report.process.pid = pid
        case "Path": report.process.path = value
        case "Identifier": report.app.bundleID = value
        case "Version":
            let (version, build) = TextScanning.versionAndBuild(value)
            report.app.version = version
            report.app.build = build
        case "Code Type":
            report.system.cpuType = value.components(separatedBy: " (").first
            if value.contains("Translated") { report.system.translated = true }
            if value.contains("Native") { report.system.translated = false }
        case "Role": report.process.role = value
        case "Parent Process":
            let (name, pid) = TextScanning.nameAndPID(value)
            report.process.parentName = name
            report.process.parentPID = pid
        case "Date/Time": report.captureTime = value
        case "Launch Time": report.launchTime = value
        case "OS Version", "OS version":
            let parsed = TextScanning.osVersion(value)
            (report.system.osName, report.system.osVersion, report.system.osBuild) = (parsed.name, parsed.version, parsed.build)
        case "Exception Type":
            var exception = report.exception ?? ExceptionDetails()
            if let open = value.firstIndex(of: "("), value.hasSuffix(")") {
                // KSCrash writes `0 (0)` (or `(null)`) when there was no Mach exception or signal,
                // as for a deadlock.
                let type = value[..<open].trimmingCharacters(in: .whitespaces)
                let signal = String(value[value.index(after: open)..<value.index(before: value.endIndex)])
                exception.type = type == "0" || type.isEmpty ? nil : type
                exception.signal = signal == "0" || signal == "(null)" || signal.isEmpty ? nil : signal
            } else if value.hasPrefix("SIG") {
                exception.signal = value
            } else {
                exception.type = value
            }
            report.exception = exception
        case "Exception Codes":
            var exception = report.exception ?? ExceptionDetails()
            exception.codesText = value
            exception.codes = ExceptionCodes.parse(value)
            report.exception = exception
        case "Exception Subtype":
            var exception = report.exception ?? ExceptionDetails()
            exception.subtype = value
            report.exception = exception
        case "Exception Message":
            var exception = report.exception ?? ExceptionDetails()
            exception.message = value
            report.exception = exception
        case "Exception Note":
            var exception = report.exception ?? ExceptionDetails()
            exception.note = value
            report.exception = exception
        case "Triggered by Thread", "Crashed Thread", "Highlighted by Thread":
            triggeredNumber = Int(value.prefix(while: \.isASCIIDigit))
        case "Termination Reason", "Termination Description", "VM Region Info", "Kernel Triage", "Exception Reason",
             "Crashing on exception":
            section = .continuation(key)
            continuationText = value.isEmpty ? [] : [value]
        case "Termination Signal":
            var termination = report.termination ?? TerminationDetails()
            termination.indicator = termination.indicator ?? value
            report.termination = termination
        case "Terminating Process":
            var termination = report.termination ?? TerminationDetails()
            let (name, pid) = TextScanning.nameAndPID(value)
            termination.byProcess = name
            termination.byPID = pid
            report.termination = termination
        case "Event":
            let event = value.lowercased()
            if event.contains("hang") || event.contains("spin") {
                report.kind = .hang
            } else if event.contains("cpu") {
                report.kind = .cpuException
            } else if event.contains("disk") || event.contains("write") {
                report.kind = .diskWriteException
            } else if event == "launch" {
                report.kind = .launch
            }
            report.extraFields.append(ReportField(name: key, value: value))
        case "CPU Time":
            report.resource = (report.resource ?? ResourceUsage())
            report.resource?.cpuTimeSeconds = TextScanning.durationMs(value).map { $0 / 1000 }
        case "Sampled Time":
            report.resource = (report.resource ?? ResourceUsage())
            report.resource?.sampledSeconds = TextScanning.durationMs(value).map { $0 / 1000 }
        case "Writes Caused":
            report.resource = (report.resource ?? ResourceUsage())
            report.resource?.bytesWritten = TextScanning.bytes(value)
        case "Launch Duration":
            report.resource = (report.resource ?? ResourceUsage())
            report.resource?.launchDurationMs = TextScanning.durationMs(value)
        case "Duration":
            report.hang = HangDetails(durationMs: TextScanning.durationMs(value))
            report.extraFields.append(ReportField(name: key, value: value))
        case "External Modification Summary", "VM Region Summary", "Error Formulating Crash Report":
            section = .skipped
        default:
            if report.extraFields.count < 64 { report.extraFields.append(ReportField(name: key, value: value)) }
        }
    }

    mutating func finishContinuation() {
        guard case .continuation(let key) = section else { return }
        let text = continuationText
        continuationText = []
        section = .header
        switch key {
        case "Termination Reason":
            var termination = report.termination ?? TerminationDetails()
            Self.parseTerminationReason(text, into: &termination)
            report.termination = termination
        case "Termination Description":
            var termination = report.termination ?? TerminationDetails()
            termination.details.append(text.joined(separator: " "))
            report.termination = termination
        case "VM Region Info":
            report.vmRegionInfo = text.joined(separator: "\n")
        case "Exception Reason", "Crashing on exception":
            let joined = text.joined(separator: " ")
            if var exception = report.languageException {
                exception.reason = exception.reason ?? joined
                report.languageException = exception
            } else {
                report.languageException = LanguageException(kind: .objectiveC, reason: joined)
            }
        default:
            report.extraFields.append(ReportField(name: key, value: text.joined(separator: "\n")))
        }
    }

    /// `Namespace SPRINGBOARD, Code 0x8badf00d`, `SIGNAL 11 Segmentation fault: 11`,
    /// `FRONTBOARD 2343432205` (then the RBSTerminateContext lines), `Namespace <0xF>, Code 0x8badf00d`.
    static func parseTerminationReason(_ text: [String], into termination: inout TerminationDetails) {
        guard let first = text.first else { return }
        if first.hasPrefix("Namespace ") {
            let body = first.dropFirst("Namespace ".count)
            let parts = body.components(separatedBy: ", ")
            termination.namespace = parts.first?.trimmingCharacters(in: .whitespaces)
            for part in parts.dropFirst() {
                if part.hasPrefix("Code ") {
                    termination.code = TextScanning.integer(Substring(part.dropFirst("Code ".count).split(separator: " ").first ?? ""))
                } else if !part.isEmpty {
                    termination.indicator = termination.indicator ?? part
                }
            }
        } else {
            let words = first.split(separator: " ", maxSplits: 2)
            termination.namespace = words.first.map(String.init)
            if words.count > 1 {
                if let code = TextScanning.integer(words[1]) {
                    termination.code = code
                    if words.count > 2 { termination.indicator = String(words[2]).trimmingCharacters(in: .whitespaces) }
                } else {
                    termination.details.append(String(first.dropFirst(words[0].count)).trimmingCharacters(in: .whitespaces))
                }
            }
        }
        termination.details += text.dropFirst()
    }

    /// Registers on one thread-state line: `x0: 0x0000000000000001   x1: …` or
    /// `esr: 0x92000004 (Data Abort) byte read Translation fault`.
    static func registers(in line: String) -> [Register]? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        var registers: [Register] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if word.hasSuffix(":"), index + 1 < words.count, let value = TextScanning.hex(words[index + 1]) {
                registers.append(Register(name: String(word.dropLast()), value: value))
                index += 2
            } else if !registers.isEmpty {
                // A description after a value (esr, trap).
                let last = registers.count - 1
                registers[last].note = [registers[last].note, String(word)].compactMap { $0 }.joined(separator: " ")
                index += 1
            } else {
                return nil
            }
        }
        return registers
    }

    /// The `Key` of a `Key: value` line, when the line looks like one.
    static func key(of line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let key = line[..<colon]
        guard !key.isEmpty, key.count <= 40, key.first?.isLetter == true,
              key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "/" || $0 == "-" || $0 == "(" || $0 == ")" || $0 == "_" }),
              !key.hasSuffix(" ") else { return nil }
        let after = line[line.index(after: colon)...]
        guard after.isEmpty || after.first == " " || after.first == "\t" else { return nil }
        return String(key)
    }

    // MARK: Resolution

    /// Builds images, attaches frames to threads with image indices, applies names, registers
    /// and the triggered thread, once every line is read.
    mutating func resolve() {
        for line in imageLines.prefix(limits.maxImages) {
            var size: UInt64?
            if let end = line.end, end >= line.start { size = end - line.start &+ 1 }
            let origin: ImageOrigin? = line.markedNonSystem ? .app : nil
            report.images.append(BinaryImage(name: line.name, uuid: line.uuid, arch: line.arch, base: line.start, size: size,
                                             path: line.path, bundleID: line.bundleID, version: line.version,
                                             origin: origin))
        }
        let byNumber = Dictionary(report.threads.enumerated().map { ($1.number, $0) }, uniquingKeysWith: { first, _ in first })
        for (thread, lineNumber, line) in rawFrames {
            let frame = stackFrame(for: line, at: lineNumber)
            if let thread {
                guard let index = byNumber[thread] else { continue }
                report.threads[index].frames.append(frame)
            } else {
                report.lastExceptionBacktrace = (report.lastExceptionBacktrace ?? []) + [frame]
            }
        }
        for (number, name) in pendingThreadNames {
            if let index = byNumber[number] { report.threads[index].name = name } else { addThread(number, name: name) }
        }
        for (number, queue) in pendingThreadQueues {
            if let index = byNumber[number] { report.threads[index].queue = queue } else { addThread(number, queue: queue) }
        }
        for state in threadStates {
            let number = state.number ?? triggeredNumber
            guard let number, let index = report.threads.firstIndex(where: { $0.number == number }) else {
                report.note("thread state", "registers for thread \(state.number.map(String.init) ?? "?") without its backtrace")
                continue
            }
            report.threads[index].registers = state.registers
            report.threads[index].registerFlavor = state.flavor
        }
        if let triggeredNumber {
            if let index = report.threads.firstIndex(where: { $0.number == triggeredNumber }) {
                report.threads[index].crashed = true
                report.triggeredThreadIndex = index
            } else {
                report.note("Triggered by Thread", "thread \(triggeredNumber) is not in the report")
            }
        }
        if report.triggeredThreadIndex == nil, let index = report.threads.firstIndex(where: \.crashed) {
            report.triggeredThreadIndex = index
        }
        if report.languageException == nil {
            report.languageException = LanguageExceptionText.find(in: report.applicationSpecificInfo)
        }
        if var exception = report.exception {
            exception.faultAddress = ExceptionCodes.faultAddress(exception, vmRegionInfo: report.vmRegionInfo)
            report.exception = exception
        }
        if let path = report.process.path, let main = report.images.first(where: { $0.path == path }) {
            report.system.architecture = main.arch
        } else {
            report.system.architecture = report.images.first?.arch
        }
    }

    mutating func addThread(_ number: Int, name: String? = nil, queue: String? = nil) {
        guard report.threads.count < limits.maxThreads else { return }
        if let index = report.threads.firstIndex(where: { $0.number == number }) {
            if let name { report.threads[index].name = name }
            if let queue { report.threads[index].queue = queue }
            return
        }
        report.threads.append(ThreadRecord(number: number, name: name, queue: queue))
    }

    /// The frame's image: the image containing its address; else the image named on the line
    /// when the address is inside it by the line's own `base + offset`; else none.
    mutating func stackFrame(for line: TextFrameLine, at lineNumber: Int) -> StackFrame {
        var frame = StackFrame(imageIndex: nil, imageOffset: line.address, imageName: line.imageName.isEmpty ? nil : line.imageName,
                               symbol: line.symbol, symbolOffset: line.symbolOffset ?? (line.loadAddress == nil ? line.offset : nil),
                               sourceFile: line.file, sourceLine: line.line, isInlined: line.inlined, textLine: lineNumber)
        if let index = report.imageIndex(containing: line.address), imageMatches(report.images[index], line) {
            frame.imageIndex = index
            frame.imageOffset = line.address - report.images[index].base
            return frame
        }
        if !line.imageName.isEmpty, let index = report.images.firstIndex(where: { $0.name == line.imageName || $0.bundleID == line.imageName }),
           line.address >= report.images[index].base {
            frame.imageIndex = index
            frame.imageOffset = line.address - report.images[index].base
            return frame
        }
        if let base = line.loadAddress, let offset = line.offset, base > 0, line.address >= base {
            // The line names its own load address; keep the image-relative offset.
            report.note("line \(lineNumber)", "image \(line.imageName) at \(Address(base)) is not in Binary Images")
            frame.imageOffset = offset
            frame.imageIndex = addImage(named: line.imageName, base: base)
            return frame
        }
        return frame
    }

    /// Whether an address-matched image plausibly is the one the line names (when images
    /// lack sizes, the closest base below an address can be the wrong image).
    func imageMatches(_ image: BinaryImage, _ line: TextFrameLine) -> Bool {
        if image.size != nil { return true }
        return line.imageName.isEmpty || image.name == line.imageName || image.bundleID == line.imageName
    }

    /// An image synthesized from a frame line when `Binary Images` lacks it.
    mutating func addImage(named name: String, base: UInt64) -> Int? {
        if let existing = report.images.firstIndex(where: { $0.name == name && $0.base == base }) { return existing }
        guard report.images.count < limits.maxImages else { return nil }
        report.images.append(BinaryImage(name: name.isEmpty ? "???" : name, uuid: nil, base: base))
        return report.images.count - 1
    }
}
