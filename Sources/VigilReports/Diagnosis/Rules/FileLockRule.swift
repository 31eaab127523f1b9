import Foundation

/// `0xdead10cc`: the app held a file or SQLite lock while being suspended. Names the threads
/// that are in SQLite or file-locking calls.
public struct FileLockRule: DiagnosisRule {
    public let id = "file-lock-while-suspended"
    public let priority = 75

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        guard facts.terminationCode == TerminationCode.deadlock else { return nil }
        var evidence = [facts.terminationEvidence].compactMap { $0 }
        for index in facts.report.threads.indices {
            let symbols = facts.symbols(index)
            if let position = symbols.firstIndex(where: { symbol in
                guard let symbol else { return false }
                return symbol.hasPrefix("sqlite3") || symbol == "flock" || symbol.contains("fcntl") || symbol.contains("NSFileCoordinator")
                    || symbol.contains("NSSQLCore") || symbol.contains("NSPersistentStore")
            }), let item = facts.frameEvidence(thread: index, frame: position, "this thread was using a database or file lock") {
                evidence.append(item)
            }
        }
        return Diagnosis(
            ruleID: id, category: .fileLockWhileSuspended,
            title: "Killed for holding a file or SQLite lock while suspended (0xdead10cc)", confidence: .high, evidence: evidence,
            advice: [
                "Request background time with beginBackgroundTask(withName:expirationHandler:) well before writing, finish the write, and release the lock before the app suspends.",
                "In an app extension use ProcessInfo.beginActivity(options:reason:).",
                "Files and databases in a shared App Group container are the usual cause: close them (or finish transactions) when going to the background.",
            ])
    }
}
