/// The fields Vigil uses from `/proc/self/status`: resident memory and thread count.
public struct ProcStatus: Sendable, Hashable {
    /// Resident set size in bytes (`VmRSS`).
    public var rssBytes: UInt64
    /// Peak resident set size in bytes (`VmHWM`), when present.
    public var peakRSSBytes: UInt64?
    /// Threads in the process (`Threads`), when present.
    public var threadCount: UInt64?

    /// A value with the given fields.
    public init(rssBytes: UInt64, peakRSSBytes: UInt64? = nil, threadCount: UInt64? = nil) {
        self.rssBytes = rssBytes
        self.peakRSSBytes = peakRSSBytes
        self.threadCount = threadCount
    }

    /// Parses the text of a `status` file; `VmRSS` is required.
    public init(parsing text: String, file: String = "/proc/self/status") throws(ProcParseError) {
        try ProcText.check(text, file: file)
        rssBytes = try ProcText.requiredKilobyteField("VmRSS", in: text, file: file)
        peakRSSBytes = try ProcText.kilobyteField("VmHWM", in: text, file: file)
        threadCount = try ProcText.kilobyteField("Threads", in: text, file: file, requireUnit: false)
    }
}
