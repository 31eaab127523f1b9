/// One classification rule: looks at a report's facts and, when its pattern is present,
/// says what happened.
///
/// Rules are explicit and independent; ``CrashClassifier`` runs all of them and ranks the
/// matches by ``priority`` (specific rules above generic ones), then confidence.
public protocol DiagnosisRule: Sendable {
    /// Stable identifier, also ``Diagnosis/ruleID``.
    var id: String { get }
    /// Rank among matching rules; higher wins.
    var priority: Int { get }
    /// The diagnosis when the rule's pattern is present, nil otherwise.
    func diagnose(_ facts: ReportFacts) -> Diagnosis?
}
