import Foundation

/// `SIGABRT` from an uncaught Objective-C or C++ exception: names the exception, its reason
/// and where it was thrown (the `Last Exception Backtrace`, or the crashed thread below the
/// throw), following Apple's "Addressing language exception crashes".
public struct UncaughtExceptionRule: DiagnosisRule {
    public let id = "uncaught-exception"
    public let priority = 75

    public init() {}

    static let throwSymbols: Set<String> = ["objc_exception_throw", "__cxa_throw", "objc_exception_rethrow", "__cxa_rethrow",
                                            "_objc_terminate()", "std::terminate()", "std::__terminate(void (*)())",
                                            "demangling_terminate_handler()", "__exceptionPreprocess"]

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let report = facts.report
        let language = report.languageException.flatMap { $0.kind == .swift ? nil : $0 }
        let backtrace = report.lastExceptionBacktrace ?? []
        let thrownInBacktrace = backtrace.contains { $0.symbol.map { Self.throwSymbols.contains(FunctionName.base($0)) } ?? false }
        let crashedThrow = facts.crashedThreadIndex.map { index in
            facts.symbols(index).contains { $0.map { Self.throwSymbols.contains($0) } ?? false }
        } ?? false
        let abort = facts.signal == "SIGABRT" || facts.exceptionType == "EXC_CRASH" || report.kind == .crash
        guard abort, language != nil || thrownInBacktrace || (crashedThrow && !backtrace.isEmpty) || (crashedThrow && facts.signal == "SIGABRT")
        else { return nil }
        let kind = language?.kind ?? (backtrace.contains { $0.symbol?.contains("__cxa_throw") ?? false } ? .cplusplus : .objectiveC)
        let name = language?.name ?? (kind == .cplusplus ? "C++ exception" : "Objective-C exception")
        var evidence: [Evidence] = []
        if let language {
            evidence.append(Evidence(report.format == .ips ? "exceptionReason" : "applicationSpecificInfo",
                                     [language.name, language.reason].compactMap { $0 }.joined(separator: ": "),
                                     "the uncaught \(kind == .cplusplus ? "C++" : "Objective-C") exception"))
        }
        if let signal = facts.signal {
            evidence.append(Evidence("exception.signal", signal, signal == "SIGABRT" ? "abort() after the exception was not caught"
                : "the signal that ended the process after the exception"))
        }
        // Where it was thrown: the first app frame after the throw in the backtrace.
        var thrownAt: String?
        if !backtrace.isEmpty {
            let start = (backtrace.lastIndex { $0.symbol.map { Self.throwSymbols.contains(FunctionName.base($0)) } ?? false } ?? -1) + 1
            if let index = backtrace[start...].firstIndex(where: { report.isInApp($0) }) {
                thrownAt = facts.describe(backtrace[index])
                evidence.append(Evidence("lastExceptionBacktrace[\(index)]", thrownAt ?? "", "the app's code that raised or triggered the exception"))
            } else if backtrace.indices.contains(start) {
                evidence.append(Evidence("lastExceptionBacktrace[\(start)]", facts.describe(backtrace[start]), "the code that raised the exception"))
            }
        }
        var title = "Uncaught \(name)"
        if let reason = language?.reason { title += ": \(reason)" }
        if let thrownAt { title += " (thrown from \(thrownAt))" }
        var advice = ["Read the reason: it names the violated precondition. The Last Exception Backtrace shows where the exception was raised."]
        switch language?.name {
        case "NSRangeException"?:
            advice.insert("An index or range was out of bounds: check counts before indexing collections or strings.", at: 0)
        case "NSInvalidArgumentException"? where (language?.reason ?? "").contains("unrecognized selector"):
            advice.insert("A message went to an object of the wrong class: often a zombie (a freed object's memory reused) or a wrong cast; enable Zombie Objects.", at: 0)
        case "NSInvalidArgumentException"?:
            advice.insert("An API received an invalid argument (often nil where an object is required).", at: 0)
        case "NSInternalInconsistencyException"?:
            advice.insert("An API's internal consistency check failed: typically UI updates off the main thread or inconsistent table/collection view updates.", at: 0)
        case "NSGenericException"? where (language?.reason ?? "").contains("mutated while being enumerated"):
            advice.insert("A collection was mutated while being enumerated: copy it first or mutate after the loop.", at: 0)
        default:
            break
        }
        if kind == .cplusplus { advice.append("Catch C++ exceptions at the boundary of C++ code; they must not cross into Objective-C or Swift frames.") }
        return Diagnosis(ruleID: id, category: .uncaughtException, title: title,
                         confidence: language != nil ? .high : .medium, evidence: evidence, advice: advice,
                         facts: [ReportField(name: "exceptionName", value: name)] + (language?.reason.map { [ReportField(name: "exceptionReason", value: $0)] } ?? []))
    }
}
