/// One tag-length-value element: a one-byte tag, a BER length (`< 0x80` in one byte, else
/// `0x81 n` or `0x82 hi lo`) and the value.
public struct TLVElement: Sendable, Hashable {
    /// The tag.
    public var tag: UInt8
    /// The value, at most 65,535 bytes.
    public var value: [UInt8]

    /// An element.
    public init(tag: UInt8, value: [UInt8]) {
        self.tag = tag
        self.value = value
    }
}

/// The TLV terminal family's packet: `0x02 | body length u16 (little-endian) | TLV elements |
/// CRC-16/MODBUS u16 (little-endian) over the length and the body`.
public struct TLVPacket: Sendable, Hashable {
    /// The start byte.
    public static let start: UInt8 = 0x02
    /// The longest body accepted.
    public static let maxBodyLength = 2048

    /// The elements, in order.
    public var elements: [TLVElement]

    /// A packet.
    public init(_ elements: [TLVElement]) { self.elements = elements }

    /// The first value with `tag`.
    public func value(_ tag: UInt8) -> [UInt8]? { elements.first { $0.tag == tag }?.value }

    /// The packet's bytes; throws when an element or the body is too long.
    public func encoded(maxBodyLength: Int = TLVPacket.maxBodyLength) throws(TLVPacketError) -> [UInt8] {
        var body: [UInt8] = []
        for element in elements {
            body.append(element.tag)
            let length = element.value.count
            switch length {
            case 0..<0x80: body.append(UInt8(length))
            case 0x80...0xFF: body += [0x81, UInt8(length)]
            case 0x100...0xFFFF: body += [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
            default: throw .valueTooLong(tag: element.tag, length: length)
            }
            body += element.value
        }
        guard body.count <= maxBodyLength else { throw .bodyTooLong(length: body.count, limit: maxBodyLength) }
        var bytes: [UInt8] = [TLVPacket.start]
        bytes.appendLittleEndian(UInt16(body.count))
        bytes += body
        bytes.appendLittleEndian(CRC16.modbus(bytes[1...]))
        return bytes
    }

    /// Parses a body into elements. Never traps; every inconsistency throws with its offset.
    public static func decodeElements(_ body: ArraySlice<UInt8>) throws(TLVPacketError) -> [TLVElement] {
        var elements: [TLVElement] = []
        var index = body.startIndex
        func offset(_ at: Int) -> Int { at - body.startIndex }
        while index < body.endIndex {
            let tag = body[index]
            index += 1
            guard index < body.endIndex else { throw .truncatedLength(tag: tag, offset: offset(index)) }
            var length = Int(body[index])
            index += 1
            if length >= 0x80 {
                let extra = length - 0x80
                guard extra == 1 || extra == 2 else { throw .badLengthEncoding(tag: tag, offset: offset(index - 1), byte: UInt8(length)) }
                guard body.endIndex - index >= extra else { throw .truncatedLength(tag: tag, offset: offset(index)) }
                length = 0
                for _ in 0..<extra {
                    length = length << 8 | Int(body[index])
                    index += 1
                }
            }
            guard body.endIndex - index >= length else {
                throw .truncatedValue(tag: tag, offset: offset(index), needed: length, available: body.endIndex - index)
            }
            elements.append(TLVElement(tag: tag, value: Array(body[index..<(index + length)])))
            index += length
        }
        return elements
    }
}

/// Why a TLV packet could not be built or parsed.
public enum TLVPacketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An element's value exceeds 65,535 bytes.
    case valueTooLong(tag: UInt8, length: Int)
    /// The body exceeds the limit.
    case bodyTooLong(length: Int, limit: Int)
    /// An element's length field runs past the body.
    case truncatedLength(tag: UInt8, offset: Int)
    /// An element's value runs past the body.
    case truncatedValue(tag: UInt8, offset: Int, needed: Int, available: Int)
    /// A length byte that is neither short form nor `0x81`/`0x82`.
    case badLengthEncoding(tag: UInt8, offset: Int, byte: UInt8)

    public var description: String {
        switch self {
        case .valueTooLong(let tag, let length): return "TLV 0x\(String(tag, radix: 16)) value of \(length) bytes is too long"
        case .bodyTooLong(let length, let limit): return "TLV body of \(length) bytes exceeds \(limit)"
        case .truncatedLength(let tag, let offset): return "TLV 0x\(String(tag, radix: 16)) length truncated at offset \(offset)"
        case .truncatedValue(let tag, let offset, let needed, let available):
            return "TLV 0x\(String(tag, radix: 16)) value at offset \(offset) needs \(needed) bytes, \(available) left"
        case .badLengthEncoding(let tag, let offset, let byte):
            return "TLV 0x\(String(tag, radix: 16)) has length byte 0x\(String(byte, radix: 16)) at offset \(offset)"
        }
    }
}
