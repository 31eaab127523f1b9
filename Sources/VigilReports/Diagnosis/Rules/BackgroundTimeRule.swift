/// `0x2182bad2`, `0x2182bad3`, `0x2182bad4`: a background task, URL session or fetch ran past
/// its time.
public struct BackgroundTimeRule: DiagnosisRule {
    public let id = "background-time-expired"
    public let priority = 75

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let title: String
        let advice: String
        switch facts.terminationCode {
        case TerminationCode.backgroundTaskExpired?:
            title = "Killed because a background task did not finish in time (0x2182bad2)"
            advice = "End every background task with endBackgroundTask(_:), also from its expiration handler, and keep the work inside within the time the system grants."
        case TerminationCode.backgroundURLSessionExpired?:
            title = "Killed because a background URL session did not finish in time (0x2182bad3)"
            advice = "Handle application(_:handleEventsForBackgroundURLSession:completionHandler:) quickly and call the completion handler as soon as the session's events are processed."
        case TerminationCode.backgroundFetchExpired?:
            title = "Killed because a background fetch did not finish in time (0x2182bad4)"
            advice = "Call the background fetch completion handler promptly; do less work per fetch."
        default:
            return nil
        }
        return Diagnosis(ruleID: id, category: .backgroundTimeExpired, title: title, confidence: .high,
                         evidence: [facts.terminationEvidence].compactMap { $0 }, advice: [advice])
    }
}
