/// Why a raw crash report file was not accepted. The next launch discards such a file and counts
/// it under ``reason``; the description says what and where.
public struct RawCrashReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reasons, also the keys of the discard counters.
    public enum Reason: String, Sendable, Hashable, CaseIterable, Codable {
        /// No bytes (or only the zeros of an unused reservation): the process did not crash.
        case empty
        /// Not a Vigil raw report (wrong first line).
        case foreign
        /// A Vigil report of a format version this reader does not know.
        case unsupportedVersion
        /// No end marker: the handler was killed, the disk filled, or the file was cut.
        case truncated
        /// The end marker's CRC-32 does not match the bytes.
        case checksumMismatch
        /// The end marker's length does not match where it stands.
        case lengthMismatch
        /// A record does not follow the grammar, or a required record is missing.
        case malformed
        /// Larger than the reader accepts.
        case tooLarge
        /// The file could not be read.
        case unreadable
    }

    /// Why the file was refused.
    public var reason: Reason
    /// Byte offset in the file where the problem is, when it has one.
    public var offset: Int?
    /// What was wrong, for logs and tests.
    public var detail: String

    /// An error of `reason` at `offset`, explained by `detail`.
    public init(_ reason: Reason, offset: Int? = nil, _ detail: String) {
        self.reason = reason
        self.offset = offset
        self.detail = detail
    }

    public var description: String {
        "raw crash report \(reason.rawValue)" + (offset.map { " at byte \($0)" } ?? "") + ": \(detail)"
    }
}
