import Foundation

/// Facts about a report that several rules need, computed once per classification.
public struct ReportFacts: Sendable {
    /// The report.
    public let report: CrashReport
    /// Termination reason code, when any.
    public let terminationCode: UInt64?
    /// Mach exception type (`EXC_BAD_ACCESS`…), when any.
    public let exceptionType: String?
    /// BSD signal (`SIGSEGV`…), when any.
    public let signal: String?
    /// Index of the main thread in ``CrashReport/threads``.
    public let mainThreadIndex: Int?
    /// Index of the crashed (triggered) thread.
    public let crashedThreadIndex: Int?
    /// What every thread was doing, by thread index.
    public let activities: [ThreadActivity]
    /// Watchdog text facts, for `0x8badf00d` terminations.
    public let watchdog: WatchdogFacts?
    /// All messages: application-specific lines, exception message, language exception.
    public let messages: [String]

    public init(_ report: CrashReport) {
        self.report = report
        terminationCode = report.termination?.code
        exceptionType = report.exception?.type
        signal = report.exception?.signal ?? (report.termination?.namespace == "SIGNAL" ? report.termination?.code
            .flatMap { MachNames.signalName(Int($0)) } : nil)
        if let main = report.threads.firstIndex(where: \.isMainThread) {
            mainThreadIndex = main
        } else if report.format != .metricKit, let first = report.threads.firstIndex(where: { $0.number == 0 }) {
            mainThreadIndex = first
        } else if report.kind == .hang, let attributed = report.triggeredThreadIndex {
            mainThreadIndex = attributed
        } else {
            mainThreadIndex = nil
        }
        crashedThreadIndex = report.triggeredThreadIndex
        activities = report.threads.map { ThreadActivityAnalyzer.analyze($0, in: report) }
        watchdog = report.termination.flatMap { $0.code == TerminationCode.watchdog ? WatchdogFacts.parse($0) : nil }
        var messages = report.applicationSpecificInfo
        if let message = report.exception?.message { messages.append(message) }
        if let reason = report.languageException?.reason { messages.append(reason) }
        messages += report.termination?.details ?? []
        self.messages = messages
    }

    /// The main thread, when known.
    public var mainThread: ThreadRecord? { mainThreadIndex.map { report.threads[$0] } }

    /// The crashed thread, when known.
    public var crashedThread: ThreadRecord? { crashedThreadIndex.map { report.threads[$0] } }

    /// Frames of a thread without inlined entries (the indices activities use).
    public func outerFrames(_ threadIndex: Int) -> [StackFrame] {
        report.threads[threadIndex].frames.filter { !$0.isInlined }
    }

    /// `pthread_mutex_lock (libsystem_pthread.dylib)` for display.
    public func describe(_ frame: StackFrame) -> String {
        let image = report.image(of: frame)?.name ?? frame.imageName ?? "???"
        guard let symbol = frame.symbol else {
            return "\(image) + 0x\(String(frame.imageOffset, radix: 16))"
        }
        var text = FunctionName.base(symbol)
        if let file = frame.sourceFile { text += " (\(file)\(frame.sourceLine.map { ":\($0)" } ?? ""))" }
        return "\(text) in \(image)"
    }

    /// Evidence naming frame `frameIndex` (an index into ``outerFrames(_:)``) of thread `threadIndex`.
    public func frameEvidence(thread threadIndex: Int, frame frameIndex: Int, _ meaning: String) -> Evidence? {
        let frames = outerFrames(threadIndex)
        guard frames.indices.contains(frameIndex) else { return nil }
        let position = ThreadActivityAnalyzer.frameIndex(frameIndex, in: report.threads[threadIndex])
        return Evidence("threads[\(threadIndex)].frames[\(position)]", describe(frames[frameIndex]), meaning)
    }

    /// Whether any message contains `text`.
    public func mentions(_ text: String) -> Bool { messages.contains(where: { $0.contains(text) }) }

    /// The symbol names of a thread's outer frames (nil where unsymbolicated).
    public func symbols(_ threadIndex: Int) -> [String?] {
        outerFrames(threadIndex).map { $0.symbol.map(FunctionName.base) }
    }

    /// The page size of the crashed process: 16 KiB on arm64 Apple platforms, 4 KiB on x86.
    public var pageSize: UInt64 {
        let arch = (report.system.architecture ?? report.system.cpuType ?? "").lowercased()
        return arch.contains("x86") || arch.hasPrefix("i386") ? 0x1000 : 0x4000
    }

    /// Evidence for the termination code.
    public var terminationEvidence: Evidence? {
        guard let termination = report.termination, let code = termination.codeHex else { return nil }
        return Evidence("termination.code", code, [termination.namespace.map { "namespace \($0)" }, termination.indicator]
            .compactMap { $0 }.joined(separator: ", "))
    }
}
