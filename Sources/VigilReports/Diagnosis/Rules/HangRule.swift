import Foundation
import VigilCore

/// Hang reports (Apple hang and spin reports, MetricKit hang diagnostics, Vigil hang events):
/// how long the main thread stopped and what it was doing.
public struct HangRule: DiagnosisRule {
    public let id = "hang"
    public let priority = 60

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        guard facts.report.kind == .hang else { return nil }
        var evidence: [Evidence] = []
        var duration = ""
        if let ms = facts.report.hang?.durationMs {
            duration = ms >= 1000 ? " of " + FixedDecimal.format(ms / 1000, digits: 1) + " s"
                : " of " + FixedDecimal.format(ms, digits: 0) + " ms"
            evidence.append(Evidence("hang.durationMs", FixedDecimal.format(ms, digits: 0), "how long the main thread did not respond"))
        }
        var title = "Hang\(duration)"
        var advice: [String] = []
        var factsList: [ReportField] = []
        var confidence = Confidence.medium
        if let main = facts.mainThreadIndex {
            let explanation = ActivityExplanation(facts, thread: main)
            if explanation.activity.kind != .unknown {
                title += ": the main thread \(explanation.phrase)"
                confidence = .high
            }
            evidence += explanation.evidence
            advice += explanation.advice
            factsList.append(ReportField(name: "mainThreadActivity", value: explanation.activity.kind.rawValue))
        } else {
            confidence = .low
        }
        return Diagnosis(ruleID: id, category: .hang, title: title, confidence: confidence, evidence: evidence, advice: advice,
                         facts: factsList)
    }
}
