/// A W3C Trace Context `traceparent` header value: `00-<trace id>-<parent span id>-<flags>`.
///
/// Parsing follows the W3C recommendation: lowercase hex only, ids not all zero, version `ff`
/// refused, version `00` exactly 55 characters, a later version accepted when its first four
/// fields parse (anything after them is ignored).
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// 32 lowercase hex digits.
    public var traceId: String
    /// 16 lowercase hex digits: the span the receiver should use as its parent.
    public var parentId: String
    /// Trace flags; bit 0 is `sampled`.
    public var flags: UInt8

    /// A header for the given ids; the caller guarantees they are valid
    /// (``TraceIdentifier/isValid(_:hexDigits:)``).
    public init(traceId: String, parentId: String, sampled: Bool = true) {
        self.traceId = traceId
        self.parentId = parentId
        self.flags = sampled ? 0x01 : 0x00
    }

    /// The header name, lowercase as HTTP/2 requires.
    public static let headerName = "traceparent"

    /// Whether the `sampled` flag is set.
    public var sampled: Bool { flags & 0x01 != 0 }

    /// A new trace with a new span id from `generator`.
    public static func random<G: RandomNumberGenerator>(sampled: Bool = true, using generator: inout G) -> TraceParent {
        TraceParent(traceId: TraceIdentifier.traceId(using: &generator),
                    parentId: TraceIdentifier.spanId(using: &generator), sampled: sampled)
    }

    /// The same trace with a new span id (the child a client request creates).
    public func child<G: RandomNumberGenerator>(using generator: inout G) -> TraceParent {
        var copy = self
        copy.parentId = TraceIdentifier.spanId(using: &generator)
        return copy
    }

    /// The header value, version `00`.
    public var header: String {
        let hexFlags = String(flags, radix: 16)
        return "00-\(traceId)-\(parentId)-\(hexFlags.count == 1 ? "0" + hexFlags : hexFlags)"
    }

    public var description: String { header }

    /// Parses a header value; surrounding spaces and tabs are ignored.
    public static func parse(_ value: String) throws(TraceParentError) -> TraceParent {
        let bytes = Array(value.trimmingASCIIWhitespace().utf8)
        guard bytes.count >= 55 else { throw .wrongLength(bytes.count) }
        guard let version = hexByte(bytes, at: 0) else { throw .badField("version") }
        guard version != 0xff else { throw .badField("version") }
        if version == 0 {
            guard bytes.count == 55 else { throw .wrongLength(bytes.count) }
        } else if bytes.count > 55, bytes[55] != UInt8(ascii: "-") {
            throw .badField("version")
        }
        guard bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-")
        else { throw .badSeparator }
        let traceId = String(decoding: bytes[3..<35], as: UTF8.self)
        guard TraceIdentifier.isValid(traceId, hexDigits: 32) else { throw .badField("trace-id") }
        let parentId = String(decoding: bytes[36..<52], as: UTF8.self)
        guard TraceIdentifier.isValid(parentId, hexDigits: 16) else { throw .badField("parent-id") }
        guard let flags = hexByte(bytes, at: 53) else { throw .badField("trace-flags") }
        var result = TraceParent(traceId: traceId, parentId: parentId)
        result.flags = flags
        return result
    }

    /// Parses a header value, nil when it is invalid (what a receiver does: ignore it).
    public init?(header: String) {
        guard let parsed = try? Self.parse(header) else { return nil }
        self = parsed
    }

    private static func hexByte(_ bytes: [UInt8], at index: Int) -> UInt8? {
        guard index + 1 < bytes.count, let high = lowerHex(bytes[index]), let low = lowerHex(bytes[index + 1]) else {
            return nil
        }
        return high << 4 | low
    }

    private static func lowerHex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

/// Why a `traceparent` value was refused.
public enum TraceParentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value has the wrong length for its version.
    case wrongLength(Int)
    /// A field is not lowercase hex of the right size, or an id is all zeros; names the field
    /// (`version`, `trace-id`, `parent-id`, `trace-flags`).
    case badField(String)
    /// The `-` separators are not where the format puts them.
    case badSeparator

    public var description: String {
        switch self {
        case .wrongLength(let count): return "traceparent: wrong length \(count)"
        case .badField(let field): return "traceparent: invalid \(field)"
        case .badSeparator: return "traceparent: separators misplaced"
        }
    }
}
