/// What a report means: a category, a one-line title, how sure the rule is, the evidence it
/// used and what to do about it.
public struct Diagnosis: Sendable, Hashable, Codable {
    /// The rule that produced it, e.g. `watchdog`, `swift-runtime-trap`.
    public var ruleID: String
    /// The kind of failure; part of the fingerprint.
    public var category: CrashCategory
    /// One line for a list of issues, e.g. "Watchdog: the main thread waited on a lock during
    /// launch (scene-create); the allowance was 3.43 s".
    public var title: String
    /// How sure the rule is.
    public var confidence: Confidence
    /// The report fields and frames the rule relied on.
    public var evidence: [Evidence]
    /// What to do, most useful first.
    public var advice: [String]
    /// Machine-readable facts the rule derived (e.g. `allowanceSeconds` = `3.43`,
    /// `mainThreadActivity` = `lock`), for dashboards and tests.
    public var facts: [ReportField]

    public init(ruleID: String, category: CrashCategory, title: String, confidence: Confidence,
                evidence: [Evidence] = [], advice: [String] = [], facts: [ReportField] = []) {
        self.ruleID = ruleID
        self.category = category
        self.title = title
        self.confidence = confidence
        self.evidence = evidence
        self.advice = advice
        self.facts = facts
    }

    /// The value of fact `name`, when the rule recorded it.
    public func fact(_ name: String) -> String? { facts.first(where: { $0.name == name })?.value }
}

/// How sure a rule is of its diagnosis.
public enum Confidence: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// A guess from weak signals (e.g. only the exception type).
    case low
    /// Consistent signals, but a key fact is inferred.
    case medium
    /// The report states the cause (a termination code, an exception message) and the stacks agree.
    case high

    public static func < (lhs: Confidence, rhs: Confidence) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .low: return 0
        case .medium: return 1
        case .high: return 2
        }
    }
}

/// One piece of evidence: a field or frame of the report and what it shows.
public struct Evidence: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where in the report: `termination.code`, `exception.subtype`, `threads[0].frames[3]`…
    public var location: String
    /// The value found there, as written or rendered (`0x8badf00d`, `pthread_mutex_lock`).
    public var value: String
    /// What it shows.
    public var meaning: String

    public init(_ location: String, _ value: String, _ meaning: String) {
        self.location = location
        self.value = value
        self.meaning = meaning
    }

    public var description: String { "\(location) = \(value): \(meaning)" }
}

/// The kind of failure a report shows. Raw values are stable identifiers (stored by the
/// server and part of fingerprints).
public enum CrashCategory: String, Sendable, Hashable, Codable, CaseIterable {
    /// The watchdog killed an unresponsive app (`0x8badf00d`).
    case watchdog = "watchdog"
    /// The main thread and another thread wait on each other.
    case deadlock = "main-thread-deadlock"
    /// A file or SQLite lock was held while the app was suspended (`0xdead10cc`).
    case fileLockWhileSuspended = "file-lock-while-suspended"
    /// Killed for a thermal event (`0xc00010ff`).
    case thermal = "thermal"
    /// A background task, URL session or fetch overran its time (`0x2182bad2/3/4`).
    case backgroundTimeExpired = "background-time-expired"
    /// Killed by the system (RunningBoard, FrontBoard…) for another reason.
    case systemTermination = "system-termination"
    /// Jettisoned by the kernel for memory (jetsam).
    case memoryPressure = "memory-pressure"
    /// A memory access at an address near zero: a nil or null pointer.
    case nullPointer = "null-pointer"
    /// A memory access at an invalid address far from zero: a dangling, corrupt or zombie pointer.
    case invalidPointer = "invalid-pointer"
    /// A memory access that violated page protection (write to read-only, execute data).
    case protectionViolation = "protection-violation"
    /// The thread ran out of stack, usually from unbounded recursion.
    case stackOverflow = "stack-overflow"
    /// An uncaught Objective-C or C++ exception.
    case uncaughtException = "uncaught-exception"
    /// A Swift runtime check trapped (force unwrap of nil, index out of range, failed cast…).
    case swiftRuntimeError = "swift-runtime-error"
    /// malloc found its heap damaged (double free, a write past a block, freeing a pointer it
    /// never returned) and stopped the process.
    case heapCorruption = "heap-corruption"
    /// The process called `abort()` (assertion, API misuse) without a language exception.
    case abort = "abort"
    /// The main thread stopped responding (a hang report).
    case hang = "hang"
    /// Too much CPU time (MetricKit CPU exception, `EXC_RESOURCE` CPU).
    case cpuUsage = "cpu-usage"
    /// Too many bytes written to disk.
    case diskWrites = "disk-writes"
    /// A slow launch.
    case slowLaunch = "slow-launch"
    /// None of the rules applied.
    case unknown = "unknown"
}
