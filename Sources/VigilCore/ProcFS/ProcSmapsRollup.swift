/// The fields Vigil uses from `/proc/self/smaps_rollup` (Linux 4.14+): proportional and
/// resident set size summed over every mapping.
public struct ProcSmapsRollup: Sendable, Hashable {
    /// Proportional set size in bytes (`Pss`): shared pages divided among their sharers.
    public var pssBytes: UInt64
    /// Resident set size in bytes (`Rss`), when present.
    public var rssBytes: UInt64?

    /// A value with the given fields.
    public init(pssBytes: UInt64, rssBytes: UInt64? = nil) {
        self.pssBytes = pssBytes
        self.rssBytes = rssBytes
    }

    /// Parses the text of `smaps_rollup`; `Pss` is required.
    public init(parsing text: String, file: String = "/proc/self/smaps_rollup") throws(ProcParseError) {
        try ProcText.check(text, file: file)
        pssBytes = try ProcText.requiredKilobyteField("Pss", in: text, file: file)
        rssBytes = try ProcText.kilobyteField("Rss", in: text, file: file)
    }
}
