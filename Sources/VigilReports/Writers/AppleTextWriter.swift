import Foundation

/// Writes a ``CrashReport`` in Apple's text layout (`.crash`), the way Xcode translates
/// `.ips` files: header, exception information, diagnostic messages, backtraces, the crashed
/// thread's state, binary images.
///
/// A report read from text is rewritten in place: every line is kept and only backtrace lines
/// whose frames gained symbols change (inlined frames get their own line, marked
/// `[inlined]`). Other reports are laid out from the model.
public enum AppleTextWriter {
    /// The report as text.
    public static func write(_ report: CrashReport) -> String {
        if case .text(let lines)? = report.original.content, report.format == .appleText {
            return rewrite(lines: lines, report: report)
        }
        return layout(report)
    }

    // MARK: In-place rewrite

    static func rewrite(lines: [String], report: CrashReport) -> String {
        var replacements: [Int: [String]] = [:]
        var groups: [[StackFrame]] = report.threads.map(\.frames)
        if let backtrace = report.lastExceptionBacktrace { groups.append(backtrace) }
        for frames in groups {
            var pendingInlined: [StackFrame] = []
            for frame in frames {
                if frame.isInlined, frame.textLine == nil {
                    pendingInlined.append(frame)
                    continue
                }
                guard let lineNumber = frame.textLine, lineNumber >= 1, lineNumber <= lines.count else {
                    pendingInlined.removeAll()
                    continue
                }
                let original = lines[lineNumber - 1]
                guard let parsed = TextFrameLine.parse(Substring(original)) else { continue }
                let needsRewrite = frame.symbol != nil && (frame.symbol != parsed.symbol || frame.sourceFile != parsed.file
                    || frame.sourceLine != parsed.line || !pendingInlined.isEmpty)
                guard needsRewrite else {
                    pendingInlined.removeAll()
                    continue
                }
                let prefix = linePrefix(original)
                var rewritten: [String] = pendingInlined.map { prefix + symbolText($0) }
                rewritten.append(prefix + symbolText(frame))
                replacements[lineNumber - 1] = rewritten
                pendingInlined.removeAll()
            }
        }
        var out: [String] = []
        out.reserveCapacity(lines.count + replacements.count)
        for (index, line) in lines.enumerated() {
            if let lines = replacements[index] { out += lines } else { out.append(line) }
        }
        return out.joined(separator: "\n")
    }

    /// The part of a frame line up to and including the address and one space.
    static func linePrefix(_ line: String) -> String {
        guard let parsed = TextFrameLine.parse(Substring(line)) else { return line + " " }
        let hex = String(parsed.address, radix: 16)
        var search = line.startIndex
        while let range = line.range(of: "0x", range: search..<line.endIndex) {
            let token = line[range.upperBound...].prefix(while: \.isHexDigit)
            if let value = UInt64(token, radix: 16), value == parsed.address, token.hasSuffix(hex) {
                return String(line[..<token.endIndex]) + " "
            }
            search = range.upperBound
        }
        return line + " "
    }

    /// `function + offset (File.swift:12)`, with ` [inlined]` for inlined frames.
    static func symbolText(_ frame: StackFrame) -> String {
        var text = (frame.symbol ?? "???") + " + \(frame.symbolOffset ?? 0)"
        if let file = frame.sourceFile {
            text += " (\(file):\(frame.sourceLine ?? 0))"
        }
        if frame.isInlined { text += " [inlined]" }
        return text
    }

    // MARK: Layout from the model

    static func layout(_ report: CrashReport) -> String {
        var out: [String] = []
        func field(_ name: String, _ value: String?, width: Int = 21) {
            guard let value, !value.isEmpty else { return }
            out.append((name + ":").padding(toLength: max(width, name.count + 2), withPad: " ", startingAt: 0) + value)
        }
        field("Incident Identifier", report.incidentID)
        for extra in report.extraFields where ["CrashReporter Key", "Beta Identifier"].contains(extra.name) {
            field(extra.name, extra.value)
        }
        field("Hardware Model", report.system.deviceModel)
        field("Process", report.process.name.map { name in report.process.pid.map { "\(name) [\($0)]" } ?? name })
        field("Path", report.process.path)
        field("Identifier", report.app.bundleID)
        field("Version", report.app.version.map { version in report.app.build.map { "\(version) (\($0))" } ?? version })
        field("Code Type", report.system.cpuType.map { cpu in
            report.system.translated.map { "\(cpu) (\($0 ? "Translated" : "Native"))" } ?? cpu
        })
        field("Role", report.process.role)
        field("Parent Process", report.process.parentName.map { name in report.process.parentPID.map { "\(name) [\($0)]" } ?? name })
        out.append("")
        field("Date/Time", report.captureTime)
        field("Launch Time", report.launchTime)
        field("OS Version", report.system.osDescription)
        field("Report Version", "104")
        out.append("")

        if let exception = report.exception {
            let typeText: String?
            switch (exception.type, exception.signal) {
            case let (type?, signal?): typeText = "\(type) (\(signal))"
            case let (type?, nil): typeText = type
            case let (nil, signal?): typeText = signal
            default: typeText = nil
            }
            field("Exception Type", typeText, width: 17)
            field("Exception Subtype", exception.subtype, width: 17)
            field("Exception Message", exception.message, width: 17)
            field("Exception Codes", exception.codesText ?? (exception.codes.isEmpty ? nil
                : exception.codes.map { String(format: "0x%016llx", $0) }.joined(separator: ", ")), width: 17)
            field("Exception Note", exception.note, width: 17)
        }
        if let region = report.vmRegionInfo { field("VM Region Info", region, width: 0) }
        if let termination = report.termination {
            var reason = ""
            if let namespace = termination.namespace { reason = "Namespace \(namespace)" }
            if let code = termination.codeHex { reason += (reason.isEmpty ? "" : ", ") + "Code \(code)" }
            if let indicator = termination.indicator { reason += (reason.isEmpty ? "" : ", ") + indicator }
            if !reason.isEmpty || !termination.details.isEmpty {
                out.append("Termination Reason: " + reason)
                out += termination.details
            }
            if let by = termination.byProcess {
                field("Terminating Process", termination.byPID.map { "\(by) [\($0)]" } ?? by, width: 0)
            }
        }
        var specific = report.applicationSpecificInfo
        if let language = report.languageException, let line = exceptionLine(language),
           LanguageExceptionText.find(in: specific)?.reason != language.reason {
            specific.insert(line, at: 0)
        }
        if report.kind != .crash {
            out.append("")
            field("Event", eventName(report.kind), width: 0)
            if let ms = report.hang?.durationMs { field("Duration", String(format: "%.2f s", ms / 1000), width: 0) }
            if let cpu = report.resource?.cpuTimeSeconds { field("CPU Time", String(format: "%.3f s", cpu), width: 0) }
            if let sampled = report.resource?.sampledSeconds { field("Sampled Time", String(format: "%.3f s", sampled), width: 0) }
            if let bytes = report.resource?.bytesWritten { field("Writes Caused", String(format: "%.0f bytes", bytes), width: 0) }
            if let launch = report.resource?.launchDurationMs { field("Launch Duration", String(format: "%.0f ms", launch), width: 0) }
        }
        out.append("")
        if let triggered = report.triggeredThread {
            out.append("Triggered by Thread:  \(triggered.number)")
            out.append("")
        }
        if !specific.isEmpty {
            out.append("Application Specific Information:")
            out += specific
            out.append("")
        }
        if let backtrace = report.lastExceptionBacktrace, !backtrace.isEmpty {
            out.append("Last Exception Backtrace:")
            out += frameLines(backtrace, in: report)
            out.append("")
        }
        for thread in report.threads {
            if let queue = thread.queue {
                out.append("Thread \(thread.number) name:   Dispatch queue: \(queue)")
            } else if let name = thread.name {
                out.append("Thread \(thread.number) name:  \(name)")
            }
            out.append("Thread \(thread.number)\(thread.crashed ? " Crashed" : ""):")
            out += frameLines(thread.frames, in: report)
            out.append("")
        }
        if let crashed = report.triggeredThread, !crashed.registers.isEmpty {
            out.append("")
            out.append("Thread \(crashed.number) crashed with \(stateName(crashed.registerFlavor, report)):")
            out += registerLines(crashed.registers)
            out.append("")
        }
        if !report.images.isEmpty {
            out.append("Binary Images:")
            for image in report.images {
                let end = image.base &+ max(image.size ?? 1, 1) &- 1
                let start = ("0x" + String(image.base, radix: 16))
                let stop = ("0x" + String(end, radix: 16))
                var line = String(repeating: " ", count: max(0, 18 - start.count)) + start + " - "
                    + String(repeating: " ", count: max(0, 18 - stop.count)) + stop + " "
                line += (image.origin == .app && image.path == nil ? "+" : "") + image.name
                if let arch = image.arch { line += " " + arch }
                line += "  <" + (image.uuid.map(ImageUUID.compact) ?? String(repeating: "0", count: 32)) + ">"
                if let path = image.path { line += " " + path }
                out.append(line)
            }
            out.append("")
        }
        out.append("EOF")
        return out.joined(separator: "\n") + "\n"
    }

    /// The message Apple's runtimes log for an uncaught exception.
    static func exceptionLine(_ language: LanguageException) -> String? {
        switch language.kind {
        case .objectiveC:
            return "*** Terminating app due to uncaught exception '\(language.name ?? "NSException")', reason: '\(language.reason ?? "")'"
        case .cplusplus:
            return "libc++abi: terminating due to uncaught exception of type \(language.name ?? "std::exception")"
                + (language.reason.map { ": \($0)" } ?? "")
        case .swift:
            guard let reason = language.reason else { return nil }
            return "\(language.name ?? "Fatal error"): \(reason)"
        }
    }

    /// `Event:` values of Apple's diagnostic reports, for report kinds other than crashes.
    static func eventName(_ kind: ReportKind) -> String {
        switch kind {
        case .hang: return "hang"
        case .cpuException: return "cpu usage"
        case .diskWriteException: return "disk writes"
        case .launch: return "launch"
        case .jetsam: return "jetsam"
        case .crash: return "crash"
        }
    }

    static func frameLines(_ frames: [StackFrame], in report: CrashReport) -> [String] {
        var lines: [String] = []
        var number = 0
        for frame in frames {
            let image = report.image(of: frame)
            let name = image?.name ?? frame.imageName ?? "???"
            let address = report.address(of: frame)
            let addressText = "0x" + String(address, radix: 16)
            var line = String(number).padding(toLength: 4, withPad: " ", startingAt: 0)
                + name.padding(toLength: max(30, name.count), withPad: " ", startingAt: 0) + "\t"
                + String(repeating: " ", count: max(0, 18 - addressText.count)) + addressText + " "
            if frame.symbol != nil {
                line += symbolText(frame)
            } else if let image {
                line += "0x" + String(image.base, radix: 16) + " + \(frame.imageOffset)"
            } else {
                line += "0 + \(address)"
            }
            lines.append(line)
            if !frame.isInlined { number += 1 }
        }
        return lines
    }

    static func stateName(_ flavor: String?, _ report: CrashReport) -> String {
        if let flavor, flavor.contains("Thread State") { return flavor }
        let isX86 = flavor.map { $0.lowercased().hasPrefix("x86") }
            ?? (report.system.cpuType?.hasPrefix("X86") == true || report.system.architecture?.hasPrefix("x86") == true)
        return isX86 ? "X86-64 Thread State" : "ARM Thread State (64-bit)"
    }

    /// Apple's layout: four registers per line, names right-aligned in five columns
    /// (`    x0: 0x…   x1: 0x…`); a register with a note (`esr`) ends its line.
    static func registerLines(_ registers: [Register]) -> [String] {
        var lines: [String] = []
        var current = ""
        var inLine = 0
        for register in registers.sorted(by: { RegisterOrder.precedes($0.name, $1.name) }) {
            let name = String(repeating: " ", count: max(0, 5 - register.name.count)) + register.name
            let width = ["cpsr", "esr"].contains(register.name) && register.value <= UInt32.max ? "0x%08llx" : "0x%016llx"
            current += (inLine == 0 ? " " : "") + name + ": " + String(format: width, register.value)
            inLine += 1
            if let note = register.note {
                lines.append(current + " " + note)
                current = ""
                inLine = 0
            } else if inLine == 4 {
                lines.append(current)
                current = ""
                inLine = 0
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
