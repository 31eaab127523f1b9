/// Why a report could not be read at all.
///
/// Damage a reader can work around does not throw: the report comes back with
/// ``CrashReport/isPartial`` set and ``CrashReport/problems`` listed.
public enum ReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input is empty or only whitespace.
    case empty
    /// The input exceeds ``ReportLimits/maxBytes``.
    case tooLarge(bytes: Int, limit: Int)
    /// The input is none of the supported formats; the text says what was seen.
    case unrecognizedFormat(String)
    /// A JSON part (`metadata line`, `report body`, `payload`, `event`) is not valid JSON.
    case malformedJSON(part: String, JSONParseError)
    /// A field the format requires is missing; `keyPath` names it.
    case missingField(keyPath: String)
    /// A field has a value of the wrong kind or out of range.
    case invalidField(keyPath: String, reason: String)
    /// An `.ips` file of a log type this module does not read (the `bug_type`).
    case unsupportedReportType(String)
    /// A text report without anything recognizable; `line` is where reading stopped.
    case malformedText(line: Int, reason: String)
    /// The input parsed but holds no report (e.g. a MetricKit payload without diagnostics).
    case noReports(String)
    /// The report cannot be written in the requested format; the text says why.
    case cannotConvert(String)

    public var description: String {
        switch self {
        case .empty: return "the report is empty"
        case .tooLarge(let bytes, let limit): return "the report has \(bytes) bytes, more than the limit of \(limit)"
        case .unrecognizedFormat(let what): return "not a crash report in a supported format: \(what)"
        case .malformedJSON(let part, let error): return "the \(part) is not valid JSON: \(error)"
        case .missingField(let keyPath): return "missing required field \(keyPath)"
        case .invalidField(let keyPath, let reason): return "\(keyPath): \(reason)"
        case .unsupportedReportType(let type): return "unsupported .ips log type (bug_type \(type))"
        case .malformedText(let line, let reason): return "line \(line): \(reason)"
        case .noReports(let what): return "no reports in the input: \(what)"
        case .cannotConvert(let why): return "cannot convert: \(why)"
        }
    }
}

/// Bounds every reader enforces, so that hostile input costs bounded memory and time.
public struct ReportLimits: Sendable, Hashable {
    /// Largest input accepted, in bytes.
    public var maxBytes: Int
    /// Most threads kept per report; more are dropped and noted.
    public var maxThreads: Int
    /// Most frames kept per thread or backtrace; more are dropped and noted.
    public var maxFramesPerThread: Int
    /// Most binary images kept per report.
    public var maxImages: Int
    /// Deepest JSON nesting accepted by `.ips` and event readers.
    public var maxJSONDepth: Int
    /// Deepest JSON nesting accepted in MetricKit payloads, whose call-stack trees nest two
    /// levels per frame.
    public var maxMetricKitJSONDepth: Int
    /// Most call-tree nodes walked per MetricKit call stack.
    public var maxCallTreeNodes: Int
    /// Most distinct sampled stacks kept per MetricKit call stack.
    public var maxSamplesPerStack: Int
    /// Most diagnostics read from one MetricKit payload (or events from one batch).
    public var maxReports: Int

    /// Problems kept per report; more are counted in ``CrashReport/isPartial`` only.
    public static let maxProblems = 200

    public init(maxBytes: Int = 64 << 20, maxThreads: Int = 2048, maxFramesPerThread: Int = 4096,
                maxImages: Int = 16384, maxJSONDepth: Int = 512, maxMetricKitJSONDepth: Int = 16_384,
                maxCallTreeNodes: Int = 100_000, maxSamplesPerStack: Int = 4096, maxReports: Int = 10_000) {
        self.maxBytes = maxBytes
        self.maxThreads = maxThreads
        self.maxFramesPerThread = maxFramesPerThread
        self.maxImages = maxImages
        self.maxJSONDepth = maxJSONDepth
        self.maxMetricKitJSONDepth = maxMetricKitJSONDepth
        self.maxCallTreeNodes = maxCallTreeNodes
        self.maxSamplesPerStack = maxSamplesPerStack
        self.maxReports = maxReports
    }

    /// The defaults: 64 MiB, 2,048 threads, 4,096 frames per thread.
    public static let standard = ReportLimits()
}
