/// Classifies and explains reports with explicit rules.
///
/// Every rule looks at the same ``ReportFacts``; the matches are ranked by rule priority,
/// then confidence. ``classify(_:)`` always answers: when no rule matches it describes the
/// exception and the top frame with low confidence. `Sendable`; cost: one pass over the
/// threads' frames per report plus each rule's look at a few frames.
public struct CrashClassifier: Sendable {
    /// The rules, in no particular order.
    public var rules: [any DiagnosisRule]

    /// A classifier with `rules` (the standard set by default).
    public init(rules: [any DiagnosisRule] = CrashClassifier.standardRules) {
        self.rules = rules
    }

    /// Every rule this module ships.
    public static var standardRules: [any DiagnosisRule] {
        [DeadlockRule(), StackOverflowRule(), WatchdogRule(), FileLockRule(), ThermalRule(), BackgroundTimeRule(), JetsamRule(),
         UncaughtExceptionRule(), SwiftRuntimeErrorRule(), HangRule(), ResourceRule(), BadAccessRule(), SystemTerminationRule(),
         HeapCorruptionRule(), AbortRule()]
    }

    /// All matching diagnoses, best first.
    public func diagnoses(_ report: CrashReport) -> [Diagnosis] {
        let facts = ReportFacts(report)
        var matches: [(priority: Int, diagnosis: Diagnosis)] = []
        for rule in rules {
            if let diagnosis = rule.diagnose(facts) { matches.append((rule.priority, diagnosis)) }
        }
        matches.sort { lhs, rhs in
            lhs.priority != rhs.priority ? lhs.priority > rhs.priority : lhs.diagnosis.confidence > rhs.diagnosis.confidence
        }
        return matches.map(\.diagnosis)
    }

    /// The best diagnosis, or a low-confidence description when no rule matches.
    public func classify(_ report: CrashReport) -> Diagnosis {
        diagnoses(report).first ?? fallback(ReportFacts(report))
    }

    func fallback(_ facts: ReportFacts) -> Diagnosis {
        let report = facts.report
        var title: String
        switch report.kind {
        case .crash:
            title = "Crash: " + ([facts.exceptionType, facts.signal].compactMap { $0 }.joined(separator: " / ").nilIfEmpty ?? "unknown cause")
        default:
            title = report.kind.rawValue
        }
        var evidence: [Evidence] = []
        if let crashed = facts.crashedThreadIndex ?? facts.mainThreadIndex, !facts.outerFrames(crashed).isEmpty {
            let outer = facts.outerFrames(crashed)
            let index = outer.firstIndex(where: { report.isInApp($0) }) ?? 0
            title += " in \(facts.describe(outer[index]))"
            if let item = facts.frameEvidence(thread: crashed, frame: index, "where the crashed thread was") { evidence.append(item) }
        }
        if let item = facts.terminationEvidence { evidence.append(item) }
        return Diagnosis(ruleID: "unknown", category: .unknown, title: title, confidence: .low, evidence: evidence,
                         advice: ["No rule recognized this report; read the crashed thread's backtrace from the top."])
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
