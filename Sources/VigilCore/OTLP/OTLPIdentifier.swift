import Foundation

/// Trace and span ids as OTLP/JSON receivers meet them: the specification says hex (any case),
/// but exporters built on a generic protobuf JSON mapping send the bytes in base64. Both are
/// read; Vigil always writes lowercase hex.
public enum OTLPIdentifier {
    /// `text` as lowercase hex of `byteCount` bytes, or nil when it is neither that many bytes of
    /// hex nor of base64, or is all zeros (an invalid id in W3C and OTLP terms).
    public static func normalized(_ text: String, byteCount: Int) -> String? {
        let bytes = Array(text.utf8)
        if bytes.count == byteCount * 2, let hex = lowercaseHex(bytes) {
            return TraceIdentifier.isValid(hex, hexDigits: byteCount * 2) ? hex : nil
        }
        guard bytes.count <= byteCount * 2, let data = decodeBase64(text), data.count == byteCount else { return nil }
        let hex = data.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        return TraceIdentifier.isValid(hex, hexDigits: byteCount * 2) ? hex : nil
    }

    /// A 16-byte trace id from `text`.
    public static func traceId(_ text: String) -> String? { normalized(text, byteCount: 16) }

    /// An 8-byte span id from `text`.
    public static func spanId(_ text: String) -> String? { normalized(text, byteCount: 8) }

    private static func lowercaseHex(_ bytes: [UInt8]) -> String? {
        var result = [UInt8]()
        result.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): result.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): result.append(byte + 32)
            default: return nil
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Standard or URL-safe base64, padded or not.
    private static func decodeBase64(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }
}
