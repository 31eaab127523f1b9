import Foundation

/// A main-thread deadlock: the main thread waits on something another thread holds while
/// that thread waits on something the main thread holds. Shown by the stacks when each
/// thread's wait site appears lower in the other's stack (lock order inversion), or when the
/// other thread waits for the main thread (a synchronous perform on the main thread) while
/// the main thread is blocked.
public struct DeadlockRule: DiagnosisRule {
    public let id = "main-thread-deadlock"
    public let priority = 90

    public init() {}

    static let waitKinds: Set<ThreadActivity.Kind> = [.lock, .dispatchSync, .semaphore, .condition]

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        if let stacks = diagnoseFromStacks(facts) { return stacks }
        return diagnoseFromReporter(facts)
    }

    /// A crash reporter's deadlock watchdog (KSCrash: `Application main thread deadlocked`, error
    /// type `deadlock`) killed the app after the main thread stopped responding; the stacks did
    /// not show the partner thread.
    func diagnoseFromReporter(_ facts: ReportFacts) -> Diagnosis? {
        guard facts.mentions("Application main thread deadlocked") else { return nil }
        var evidence = [Evidence("applicationSpecificInfo", "Application main thread deadlocked",
                                 "the crash reporter's watchdog found the main thread unresponsive and ended the process")]
        var place = ""
        if let main = facts.mainThreadIndex {
            let activity = facts.activities[main]
            if let site = activity.siteFrame ?? activity.appFrame,
               let item = facts.frameEvidence(thread: main, frame: site, "where the main thread was (\(activity.kind.rawValue))") {
                evidence.append(item)
                place = " in \(item.value)"
            }
        }
        return Diagnosis(
            ruleID: id, category: .deadlock, title: "Main thread deadlocked or stuck\(place) (ended by the crash reporter's watchdog)",
            confidence: .medium, evidence: evidence,
            advice: ["Look at what the main thread waits for and which thread holds it; move blocking work off the main thread.",
                     "Take locks in one global order on every thread, and never wait synchronously for the main thread from a thread the main thread may wait for."])
    }

    func diagnoseFromStacks(_ facts: ReportFacts) -> Diagnosis? {
        guard let main = facts.mainThreadIndex, Self.waitKinds.contains(facts.activities[main].kind) else { return nil }
        let mainActivity = facts.activities[main]
        let mainSymbols = facts.symbols(main)
        guard let mainSite = mainActivity.siteFrame, mainSymbols.indices.contains(mainSite), let mainSiteName = mainSymbols[mainSite]
        else { return nil }
        for other in facts.report.threads.indices where other != main {
            let activity = facts.activities[other]
            guard Self.waitKinds.contains(activity.kind), let site = activity.siteFrame else { continue }
            let symbols = facts.symbols(other)
            guard symbols.indices.contains(site), let siteName = symbols[site] else { continue }
            let waitsForMain = symbols.prefix(site + 3).contains { symbol in
                guard let symbol else { return false }
                return symbol.contains("performSelectorOnMainThread") && symbol.contains("waitUntilDone")
                    || symbol.contains("DispatchQueue.main.sync") || symbol.contains("runOnMainThreadSync")
            }
            // Lock order inversion: each thread holds (lower in its stack) what the other waits for.
            let mainHoldsOthers = siteName != mainSiteName && mainSymbols.dropFirst(mainSite + 1).contains(siteName)
            let otherHoldsMains = siteName != mainSiteName && symbols.dropFirst(site + 1).contains(mainSiteName)
            guard (mainHoldsOthers && otherHoldsMains) || waitsForMain else { continue }
            let thread = facts.report.threads[other]
            let label = thread.name ?? thread.queue ?? "thread \(thread.number)"
            var evidence = [
                facts.frameEvidence(thread: main, frame: mainSite, "the main thread waits here (\(mainActivity.kind.rawValue))"),
                facts.frameEvidence(thread: other, frame: site, "\(label) waits here (\(activity.kind.rawValue))"),
            ].compactMap { $0 }
            let title: String
            let confidence: Confidence
            if mainHoldsOthers && otherHoldsMains {
                if let position = mainSymbols.dropFirst(mainSite + 1).firstIndex(of: siteName),
                   let item = facts.frameEvidence(thread: main, frame: position, "the main thread already went through \(siteName): it holds what \(label) waits for") {
                    evidence.append(item)
                }
                if let position = symbols.dropFirst(site + 1).firstIndex(of: mainSiteName),
                   let item = facts.frameEvidence(thread: other, frame: position, "\(label) already went through \(mainSiteName): it holds what the main thread waits for") {
                    evidence.append(item)
                }
                title = "Main-thread deadlock: the main thread waits in \(mainSiteName) for \(label), which waits in \(siteName) for the main thread (lock order inversion)"
                confidence = .high
            } else {
                title = "Main-thread deadlock: the main thread is blocked in \(mainSiteName) while \(label) waits for the main thread in \(siteName)"
                confidence = .medium
            }
            if let watchdog = facts.watchdog, let evidenceItem = facts.terminationEvidence {
                evidence.insert(evidenceItem, at: 0)
                _ = watchdog
            }
            return Diagnosis(
                ruleID: id, category: .deadlock, title: title, confidence: confidence, evidence: evidence,
                advice: [
                    "Take locks in one global order on every thread, or never hold a lock while waiting for another.",
                    "Never wait for the main thread (performSelectorOnMainThread:waitUntilDone:YES, DispatchQueue.main.sync) from code that may run while the main thread waits for you.",
                ],
                facts: [ReportField(name: "otherThread", value: String(thread.number)),
                        ReportField(name: "mainThreadActivity", value: mainActivity.kind.rawValue)])
        }
        return nil
    }
}
