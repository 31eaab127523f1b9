/// How a transfer keeps chunks in flight.
public enum TransferMode: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// One chunk at a time, each an ATT Write Request, the next sent after the peer's ACK.
    case stopAndWait = 0
    /// Selective repeat: up to the negotiated window of chunks in flight as Write Commands,
    /// acknowledged by a cumulative index plus a bitmap, only missing chunks resent.
    case window = 1

    /// The CLI spelling: `stopwait` or `window`.
    public var description: String { self == .window ? "window" : "stopwait" }

    /// Parses the CLI spelling.
    public init?(name: String) {
        switch name.lowercased() {
        case "window", "sliding-window", "selective-repeat": self = .window
        case "stopwait", "stop-and-wait", "saw": self = .stopAndWait
        default: return nil
        }
    }
}

/// Width of the sequence number in DATA packets: two bytes while the chunk count fits, four
/// beyond (both sides derive it from the START packet, so it is never sent).
public enum SequenceWidth: Int, Sendable, Hashable {
    /// `u16`: transfers of at most 65,536 chunks.
    case two = 2
    /// `u32`.
    case four = 4

    /// The width a transfer of `chunkCount` chunks uses.
    public static func forChunkCount(_ chunkCount: UInt64) -> SequenceWidth {
        chunkCount <= 65_536 ? .two : .four
    }
}
