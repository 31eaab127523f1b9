import Foundation

/// Explains what one thread (usually the main thread) was doing, for watchdog and hang
/// diagnoses: a phrase, the frames that show it, who may be holding it up, and advice.
struct ActivityExplanation {
    var activity: ThreadActivity
    /// "waited on a lock in icu::Locale::getDefault()".
    var phrase: String
    var evidence: [Evidence]
    var advice: [String]
    /// Index of another thread that seems to hold what this one waits for.
    var holder: Int?

    init(_ facts: ReportFacts, thread index: Int) {
        let report = facts.report
        activity = facts.activities[index]
        let frames = facts.outerFrames(index)
        let symbols = facts.symbols(index)
        evidence = []
        advice = []
        let site = activity.siteFrame.flatMap { symbols.indices.contains($0) ? symbols[$0] : nil }
        let api = activity.apiFrame.flatMap { symbols.indices.contains($0) ? symbols[$0] : nil }
        let app = activity.appFrame.flatMap { frames.indices.contains($0) ? facts.describe(frames[$0]) : nil }
        phrase = activity.phrase
        switch activity.kind {
        case .busy, .idle, .unknown:
            if let site, activity.kind == .busy { phrase += " in \(site)" }
        default:
            if let site, site != api { phrase += " in \(site)" }
            if let api { phrase += (site != nil && site != api ? ", under " : " in ") + api }
        }
        let name = report.threads[index].isMainThread || index == facts.mainThreadIndex ? "main thread" : "thread \(report.threads[index].number)"
        if let wait = activity.waitFrame, let item = facts.frameEvidence(thread: index, frame: wait,
                                                                           "the \(name) is blocked here (\(activity.kind.rawValue))") {
            evidence.append(item)
        }
        if let siteIndex = activity.siteFrame, siteIndex != activity.waitFrame,
           let item = facts.frameEvidence(thread: index, frame: siteIndex, activity.isBlocked ? "the code that waits" : "the code running") {
            evidence.append(item)
        }
        if let domain = activity.domainFrame, domain != activity.siteFrame,
           let item = facts.frameEvidence(thread: index, frame: domain, "\(activity.kind.rawValue) API") {
            evidence.append(item)
        }
        if let apiIndex = activity.apiFrame, apiIndex != activity.siteFrame,
           let item = facts.frameEvidence(thread: index, frame: apiIndex, "the framework API involved") {
            evidence.append(item)
        }
        if let appIndex = activity.appFrame, let item = facts.frameEvidence(thread: index, frame: appIndex, "the app's own code that led here") {
            evidence.append(item)
        }

        // Another thread inside the same code, and not waiting, likely holds the lock.
        if [.lock, .dispatchSync, .semaphore, .condition].contains(activity.kind) {
            let keys = [site, api].compactMap { $0 }
            for (other, thread) in report.threads.enumerated() where other != index && !keys.isEmpty {
                let otherSymbols = facts.symbols(other)
                guard otherSymbols.contains(where: { symbol in symbol.map { keys.contains($0) } ?? false }) else { continue }
                let otherActivity = facts.activities[other]
                if otherActivity.kind != activity.kind || !otherActivity.isBlocked {
                    holder = other
                    evidence.append(Evidence("threads[\(other)]", thread.name ?? thread.queue ?? "thread \(thread.number)",
                                             "runs the same code (\(keys[0])) and \(otherActivity.phrase): it likely holds what the \(name) waits for"))
                    break
                }
            }
        }

        switch activity.kind {
        case .lock:
            let holderText = holder.map { "thread \(report.threads[$0].number)" } ?? "another thread"
            advice.append("Find the lock's holder (\(holderText) in this report) and keep the main thread from waiting on it: do the contended work on a background queue, or give the main thread its own instance.")
            if let api {
                advice.append("The lock is taken inside \(api); create such objects once and reuse them instead of creating them on the main thread while background threads do the same.")
            }
        case .semaphore:
            advice.append("Do not wait on a semaphore or dispatch group on the main thread for asynchronous work; continue in a completion handler or with async/await.")
        case .dispatchSync:
            advice.append("dispatch_sync from the main thread waits for another queue to run the block; if that queue is busy or waits for the main thread, the app stops. Use dispatch_async, or keep the other queue's work short.")
        case .condition:
            advice.append("The thread waits on a condition variable another thread must signal; do not block the main thread on it.")
        case .networkIO:
            advice.append("Run networking asynchronously with URLSession; replace synchronous initializers that take a URL (String(contentsOf:), Data(contentsOf:)), SCNetworkReachability (use NWPathMonitor) and BSD DNS calls on the main thread.")
        case .database:
            advice.append("Do database work (Core Data fetches and saves, SQLite statements, store migrations) on a background queue or context, not on the main thread.")
        case .fileIO:
            advice.append("Move file reads and writes off the main thread; file systems can stall for long under load or on network volumes.")
        case .ipc:
            advice.append("A synchronous XPC/IPC call blocks until the other process answers; call it asynchronously.")
        case .sleep:
            advice.append("Never sleep on the main thread; schedule the work with a timer or dispatch_after.")
        case .busy:
            let what = app ?? site ?? "the code at the top of the stack"
            advice.append("The thread was running \(what): profile it with Instruments (Time Profiler) and move heavy work off the main thread or defer it.")
        case .idle:
            advice.append("The main thread was idle when the report was taken: the time went to work that had already finished, which the backtrace does not show. Profile that phase (Instruments, os_signpost) to find it.")
        case .unknown:
            advice.append("The report's frames are not symbolicated enough to tell what the thread was doing; symbolicate it with the app's dSYM.")
        }
    }
}
