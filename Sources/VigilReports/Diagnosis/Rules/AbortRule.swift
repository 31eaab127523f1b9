import Foundation

/// `SIGABRT` without a language exception: `abort()` from an assertion, a framework's
/// misuse check (`BUG IN CLIENT OF …`), heap corruption detected by malloc, or a failed
/// `dyld` load. Uses the Application Specific Information messages.
public struct AbortRule: DiagnosisRule {
    public let id = "abort"
    public let priority = 40

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let report = facts.report
        let misuse = facts.messages.first(where: { $0.contains("BUG IN CLIENT OF") || $0.contains("BUG IN LIBDISPATCH") })
        guard facts.signal == "SIGABRT" || misuse != nil, report.kind == .crash else { return nil }
        var evidence: [Evidence] = []
        if let signal = facts.signal {
            evidence.append(Evidence("exception.signal", signal, signal == "SIGABRT" ? "the process called abort()" : "the signal that ended the process"))
        }
        let messages = report.applicationSpecificInfo.filter { !$0.hasPrefix("abort() called") }
        for message in messages.prefix(3) {
            evidence.append(Evidence("applicationSpecificInfo", message, "the message logged before the abort"))
        }
        let abortFrame = facts.crashedThreadIndex.flatMap { index in
            facts.symbols(index).firstIndex(where: { $0 == "abort" || $0 == "__abort_with_payload" || $0 == "abort_with_payload" })
                .map { (index, $0) }
        }
        var callerText: String?
        if let (thread, position) = abortFrame {
            let outer = facts.outerFrames(thread)
            if let caller = outer.indices.dropFirst(position + 1).first(where: { report.isInApp(outer[$0]) }) ?? outer.indices.dropFirst(position + 1).first {
                callerText = facts.describe(outer[caller])
                if let item = facts.frameEvidence(thread: thread, frame: caller, "the code that called abort()") { evidence.append(item) }
            }
        }
        var title = (facts.signal == "SIGABRT" ? "abort() called" : "Stopped by \(facts.signal ?? facts.exceptionType ?? "the system")")
            + (callerText.map { " from \($0)" } ?? "")
        var advice = ["The message logged just before the abort names the reason; the crashed thread shows who aborted."]
        var confidence = Confidence.medium
        if let misuse {
            title = "API misuse detected by the system: \(misuse)"
            advice = ["A system framework detected incorrect use of its API and stopped the process; the message names the rule (e.g. dispatch_sync onto the current queue, an over-released object)."]
            confidence = .high
        } else if let heap = messages.first(where: { $0.contains("malloc") || $0.contains("pointer being freed") || $0.contains("Corruption") }) {
            title = "Heap corruption detected by malloc: \(heap)"
            advice = ["A double free or a write past a heap block: run with Address Sanitizer or Guard Malloc."]
            confidence = .high
        } else if let dyld = report.termination, dyld.namespace == "DYLD" {
            title = "Launch failed: a library could not be loaded (\(dyld.details.first ?? dyld.indicator ?? "dyld"))"
            advice = ["Embed and sign the missing framework in the app, and check its minimum OS version and architecture."]
            confidence = .high
        } else if messages.isEmpty {
            confidence = .low
        }
        return Diagnosis(ruleID: id, category: .abort, title: title, confidence: confidence, evidence: evidence, advice: advice)
    }
}
