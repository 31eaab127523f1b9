import Foundation

/// `0x8badf00d`: the watchdog killed an app that did not launch, resume, suspend, exit or
/// update its UI in time. Reads the event and the allowance from the termination text and
/// what the main thread was doing from its frames (a lock, a semaphore, `dispatch_sync`,
/// I/O, or busy on the CPU), following Apple's "Addressing watchdog terminations".
public struct WatchdogRule: DiagnosisRule {
    public let id = "watchdog"
    public let priority = 80

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        guard facts.terminationCode == TerminationCode.watchdog, let watchdog = facts.watchdog else { return nil }
        var evidence = [facts.terminationEvidence].compactMap { $0 }
        var facts_: [ReportField] = [ReportField(name: "phase", value: watchdog.phase.rawValue)]
        if let event = watchdog.event {
            evidence.append(Evidence("termination.details", event, "the watchdog event: \(watchdog.phasePhrase)"))
            facts_.append(ReportField(name: "watchdogEvent", value: event))
        }
        var allowanceText = ""
        if let allowance = watchdog.allowanceSeconds {
            let seconds = String(format: "%.2f", allowance)
            allowanceText = "; the allowance was \(seconds) s"
            evidence.append(Evidence("termination.details", "\(seconds) s", "wall-clock time allowance exhausted"))
            facts_.append(ReportField(name: "allowanceSeconds", value: seconds))
        }
        if let app = watchdog.appCPUSeconds {
            let percent = watchdog.appCPUPercent.map { String(format: "%.0f%%", $0) } ?? "?"
            let meaning = (watchdog.appCPUPercent ?? 0) >= 50 ? "the app was busy on the CPU"
                : (watchdog.appCPUPercent ?? 100) <= 10 ? "the app was mostly idle: waiting, not computing" : "moderate CPU use by the app"
            evidence.append(Evidence("termination.details", String(format: "%.3f s app CPU (%@)", app, percent), meaning))
            facts_.append(ReportField(name: "appCPUSeconds", value: String(format: "%.3f", app)))
        }
        var title = "Watchdog: the app was killed \(watchdog.phasePhrase)"
        if let event = watchdog.event { title += " (\(event))" }
        var advice: [String] = []
        var confidence = Confidence.medium
        if let main = facts.mainThreadIndex {
            let explanation = ActivityExplanation(facts, thread: main)
            facts_.append(ReportField(name: "mainThreadActivity", value: explanation.activity.kind.rawValue))
            if let holder = explanation.holder { facts_.append(ReportField(name: "lockHolderThread", value: String(facts.report.threads[holder].number))) }
            if explanation.activity.kind != .unknown {
                title = "Watchdog: the main thread \(explanation.activity.phrase) \(watchdog.phasePhrase)"
                if let event = watchdog.event { title += " (\(event))" }
                confidence = watchdog.event != nil ? .high : .medium
            }
            evidence += explanation.evidence
            advice += explanation.advice
            if explanation.activity.kind == .busy, (watchdog.appCPUPercent ?? 100) <= 10 {
                // The app barely ran: the top frame is not where the time went.
                confidence = .medium
            }
        }
        title += allowanceText
        switch watchdog.phase {
        case .launch:
            advice.append("The launch allowance ends when the first frame is drawn: defer everything the first screen does not need until after launch.")
        case .resume:
            advice.append("Returning to the foreground must be quick: keep work in sceneWillEnterForeground/applicationWillEnterForeground minimal.")
        case .suspend, .exit:
            advice.append("Finish or cancel work promptly when going to the background or exiting; long cleanup belongs in a background task.")
        case .uiUpdate:
            advice.append("The main thread could not update the UI in time: keep each main-thread turn short.")
        case .other:
            break
        }
        advice.append("The backtrace shows what ran at the moment of termination, not necessarily what used the time: check earlier work in the same phase too.")
        return Diagnosis(ruleID: id, category: .watchdog, title: title, confidence: confidence, evidence: evidence,
                         advice: advice, facts: facts_)
    }
}
