import Foundation

/// `0xc00010ff`: killed for a thermal event.
public struct ThermalRule: DiagnosisRule {
    public let id = "thermal"
    public let priority = 75

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        guard facts.terminationCode == TerminationCode.thermal else { return nil }
        var evidence = [facts.terminationEvidence].compactMap { $0 }
        for detail in facts.report.termination?.details ?? [] where detail.contains("Thermal") || detail.contains("%CPU") {
            evidence.append(Evidence("termination.details", detail.trimmingCharacters(in: .whitespaces), "thermal state at termination"))
        }
        return Diagnosis(
            ruleID: id, category: .thermal, title: "Killed by the system for a thermal event (0xc00010ff)", confidence: .high,
            evidence: evidence,
            advice: [
                "The device was too hot: this may be the device or its environment rather than the app.",
                "Reduce sustained CPU and GPU work, and react to ProcessInfo.thermalState changes; test with Xcode's thermal device condition.",
            ])
    }
}
