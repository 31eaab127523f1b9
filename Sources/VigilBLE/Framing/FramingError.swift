/// Why framing refused to build a frame, or why the reassembler dropped bytes.
public enum FramingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A payload longer than the format allows was given to the encoder.
    case payloadTooLong(length: Int, limit: Int)

    public var description: String {
        switch self {
        case .payloadTooLong(let length, let limit):
            return "frame payload of \(length) bytes exceeds the limit of \(limit)"
        }
    }
}

/// Why the reassembler discarded bytes; reported with each discarded run so that noise on a
/// link is visible rather than silently swallowed.
public enum FrameDiscardReason: Sendable, Hashable, CustomStringConvertible {
    /// Bytes that cannot start a frame (no `0xAA 0x55` there).
    case noSync
    /// A header announced a payload longer than the format's limit; the sync was a false one.
    case oversizedLength(announced: Int, limit: Int)
    /// A complete candidate frame whose checksum did not match; its first byte is dropped and the
    /// search resumes right after it, so a real frame hidden inside the candidate is still found.
    case checksumMismatch(expected: UInt16, actual: UInt16)

    public var description: String {
        switch self {
        case .noSync: return "no sync"
        case .oversizedLength(let announced, let limit): return "length \(announced) over the limit \(limit)"
        case .checksumMismatch(let expected, let actual):
            return "checksum 0x\(String(actual, radix: 16)) where 0x\(String(expected, radix: 16)) was computed"
        }
    }
}
