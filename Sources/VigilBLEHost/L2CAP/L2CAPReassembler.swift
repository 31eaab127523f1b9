/// Rebuilds L2CAP basic-mode PDUs from the ACL fragments of one connection (Core spec Vol 3
/// Part A 3.1, 7.2).
///
/// A start fragment opens a PDU whose length comes from its 4-byte basic header; continuation
/// fragments are appended until that length is reached. Protocol errors (a continuation with no
/// PDU open, a start while one is open, more bytes than the header promised) drop the partial
/// PDU and are reported, never trapped on. Cost: O(bytes); one PDU (≤ 65,539 bytes) buffered.
public struct L2CAPReassembler: Sendable {
    /// A complete PDU: channel and payload.
    public struct PDU: Sendable, Hashable {
        /// The channel identifier (4: ATT, 5: LE signaling, 6: SMP).
        public var channel: UInt16
        /// The information payload.
        public var payload: [UInt8]
    }

    private var partial: [UInt8] = []
    private var expected = 0

    /// An empty reassembler.
    public init() {}

    /// PDUs dropped because their fragments did not fit together.
    public private(set) var droppedPDUs = 0

    /// Adds one ACL fragment; returns the PDU it completes, if any.
    public mutating func add(_ fragment: ACLPacket) throws(HostDecodingError) -> PDU? {
        switch fragment.boundary {
        case .firstFlushable, .firstNonFlushable, .complete:
            if !partial.isEmpty { droppedPDUs += 1 }
            partial = fragment.data
            expected = -1
        case .continuing:
            guard !partial.isEmpty else {
                droppedPDUs += 1
                throw .invalidValue(field: "ACL continuation without a start fragment", value: fragment.data.count)
            }
            partial += fragment.data
        }
        if expected < 0 {
            guard partial.count >= 2 else { return nil }
            expected = 4 + (Int(partial[0]) | Int(partial[1]) << 8)
        }
        if partial.count < expected || partial.count < 4 { return nil }
        defer {
            partial = []
            expected = 0
        }
        guard partial.count == expected else {
            droppedPDUs += 1
            throw .badLength(field: "L2CAP PDU length", value: expected - 4)
        }
        return PDU(channel: UInt16(partial[2]) | UInt16(partial[3]) << 8, payload: Array(partial[4...]))
    }

    /// Forgets a partial PDU (the link went down).
    public mutating func reset() {
        partial = []
        expected = 0
    }
}

/// Splits an L2CAP PDU into ACL packets no longer than the controller's ACL data length.
public enum L2CAPFragmenter {
    /// The ACL packets carrying `payload` on `channel` over `handle`; `maximumFragment` is the
    /// controller's LE ACL data packet length (≥ 1).
    public static func fragments(handle: UInt16, channel: UInt16, payload: [UInt8], maximumFragment: Int) -> [ACLPacket] {
        var pdu: [UInt8] = []
        pdu.reserveCapacity(payload.count + 4)
        pdu.appendLE(UInt16(truncatingIfNeeded: payload.count))
        pdu.appendLE(channel)
        pdu += payload
        let size = max(1, maximumFragment)
        var packets: [ACLPacket] = []
        var offset = 0
        while offset < pdu.count {
            let end = min(pdu.count, offset + size)
            packets.append(ACLPacket(handle: handle, boundary: offset == 0 ? .firstNonFlushable : .continuing,
                                     data: Array(pdu[offset..<end])))
            offset = end
        }
        return packets
    }
}
