import Foundation

/// SIGKILL by the system (RunningBoard, FrontBoard, SpringBoard) for reasons other than the
/// ones with their own rule: disk space, resource overuse, VoIP misuse, watchOS background
/// limits, or an unknown code.
public struct SystemTerminationRule: DiagnosisRule {
    public let id = "system-termination"
    public let priority = 50

    public init() {}

    static let systemNamespaces: Set<String> = ["RUNNINGBOARD", "FRONTBOARD", "SPRINGBOARD", "CAROUSEL", "BACKBOARD", "ASSERTIOND"]

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let namespace = facts.report.termination?.namespace?.uppercased()
        let killed = facts.signal == "SIGKILL" || namespace.map(Self.systemNamespaces.contains) == true
        guard killed, facts.report.kind == .crash else { return nil }
        let handled: Set<UInt64> = [TerminationCode.watchdog, TerminationCode.deadlock, TerminationCode.thermal,
                                    TerminationCode.backgroundTaskExpired, TerminationCode.backgroundURLSessionExpired,
                                    TerminationCode.backgroundFetchExpired]
        if let code = facts.terminationCode, handled.contains(code) { return nil }
        let by = namespace.map { $0 == "RUNNINGBOARD" ? "RunningBoard" : $0.capitalized } ?? "the system"
        var title = "Killed by \(by)"
        var advice: [String] = []
        var confidence = Confidence.medium
        switch facts.terminationCode {
        case TerminationCode.diskSpace?:
            title += " to reclaim disk space (0xbaddd15c)"
            advice.append("Write less to disk and manage the life cycle of caches and temporary files.")
            confidence = .high
        case TerminationCode.resourceOveruse?:
            title += " for excessive use of system resources (0xd00d2bad)"
            advice.append("Reduce parallel work and finish preceding tasks before starting new ones.")
            confidence = .high
        case TerminationCode.badCall?:
            title += " for not reporting a CallKit call for a VoIP push (0xbaadca11)"
            advice.append("Report a call to CallKit for every PushKit VoIP notification, before its handler returns.")
            confidence = .high
        case TerminationCode.voipResumedTooOften?:
            title += " for resuming a VoIP app too often (0xbad22222)"
            advice.append("Reduce how often the VoIP app is woken.")
            confidence = .high
        case TerminationCode.watchBackgroundCPU?, TerminationCode.watchBackgroundTime?, TerminationCode.watchBackgroundBusy?:
            title += " for exceeding a watchOS background task limit (\(facts.report.termination?.codeHex ?? ""))"
            advice.append("Do less work in watchOS background tasks and finish them within their time.")
            confidence = .high
        case let code?:
            title += " (code 0x\(String(code, radix: 16)))"
            advice.append("Read the termination details for the system's reason; SIGKILL cannot be caught, so only the cause can be fixed.")
        case nil:
            advice.append("The process was killed (SIGKILL) without a reason code: a user force-quit, a debugger, or a system policy.")
            confidence = .low
        }
        var evidence = [facts.terminationEvidence].compactMap { $0 }
        if facts.signal == "SIGKILL" { evidence.append(Evidence("exception.signal", "SIGKILL", "terminated by another process")) }
        return Diagnosis(ruleID: id, category: .systemTermination, title: title, confidence: confidence, evidence: evidence,
                         advice: advice)
    }
}
