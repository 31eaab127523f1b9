/// Everything the module says about one report: the diagnosis, the other rules that matched,
/// the fingerprint, and (when symbolicated) the symbolication summary. The server stores
/// this; `vigil report analyze --json` prints it.
public struct ReportAnalysis: Sendable, Hashable, Codable {
    /// The best diagnosis.
    public var diagnosis: Diagnosis
    /// Other rules that matched, best first.
    public var alternatives: [Diagnosis]
    /// The grouping key.
    public var fingerprint: CrashFingerprint
    /// What symbolication found, when the report was symbolicated first.
    public var symbolication: SymbolicationSummary?
    /// Problems the reader skipped or repaired.
    public var problems: [ReportProblem]

    /// Classifies and fingerprints `report`.
    public init(report: CrashReport, classifier: CrashClassifier = CrashClassifier(),
                symbolication: SymbolicationSummary? = nil) {
        let all = classifier.diagnoses(report)
        diagnosis = all.first ?? classifier.classify(report)
        alternatives = Array(all.dropFirst())
        fingerprint = CrashFingerprint.compute(for: report, diagnosis: diagnosis)
        self.symbolication = symbolication
        problems = report.problems
    }
}
