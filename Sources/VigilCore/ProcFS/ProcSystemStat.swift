/// The field Vigil uses from `/proc/stat`: the boot time.
public struct ProcSystemStat: Sendable, Hashable {
    /// Boot time in seconds since the Unix epoch (`btime` line).
    public var bootTimeSeconds: UInt64

    /// A value with the given boot time.
    public init(bootTimeSeconds: UInt64) { self.bootTimeSeconds = bootTimeSeconds }

    /// Parses the text of `/proc/stat`, finding its `btime` line.
    public init(parsing text: String, file: String = "/proc/stat") throws(ProcParseError) {
        try ProcText.check(text, file: file)
        var offset = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            defer { offset += line.utf8.count + 1 }
            let tokens = line.split(separator: " ", omittingEmptySubsequences: true)
            guard tokens.first == "btime" else { continue }
            guard tokens.count == 2, let value = ProcText.unsigned(tokens[1]) else {
                throw ProcParseError(file: file, field: "btime", offset: offset,
                                     reason: .notANumber(ProcText.excerpt(tokens.dropFirst().joined(separator: " "))))
            }
            guard value > 0 else {
                throw ProcParseError(file: file, field: "btime", offset: offset, reason: .outOfRange("boot time 0"))
            }
            bootTimeSeconds = value
            return
        }
        throw ProcParseError(file: file, field: "btime", reason: .missingField)
    }
}
