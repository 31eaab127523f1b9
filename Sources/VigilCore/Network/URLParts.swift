/// The pieces of an absolute URL that a template is built from, split without Foundation's
/// URL parser so the result is the same on every platform and costs one pass over the bytes.
///
/// User info (`user:password@`) is never kept. The host is lowercased (ASCII); a port equal to
/// the scheme's default is dropped.
public struct URLParts: Sendable, Hashable {
    /// Lowercased scheme, e.g. `https`; empty for a URL without one.
    public var scheme: String
    /// Lowercased host name or IP literal (IPv6 keeps its brackets).
    public var host: String
    /// Port when given and not the scheme's default.
    public var port: Int?
    /// Raw (still percent-encoded) path, `/` when empty.
    public var path: Substring
    /// Raw query without the `?`, nil when there is none.
    public var query: Substring?
    /// Raw fragment without the `#`, nil when there is none.
    public var fragment: Substring?

    /// Splits `text`; never fails: anything unexpected ends up in the path.
    ///
    /// Works on the UTF-8 view: every delimiter is ASCII, so the indices found are scalar
    /// boundaries and slicing there is valid.
    public init(_ text: String) {
        let bytes = text.utf8
        var end = bytes.endIndex
        // Fragment and query are cut first: they may contain '/', ':' and '@'.
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) {
            fragment = text[bytes.index(after: hash)...]
            end = hash
        } else {
            fragment = nil
        }
        if let question = bytes[..<end].firstIndex(of: UInt8(ascii: "?")) {
            query = text[bytes.index(after: question)..<end]
            end = question
        } else {
            query = nil
        }
        scheme = ""
        host = ""
        port = nil
        var rest = bytes.startIndex
        if let colon = bytes[..<end].firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex,
           bytes[colon..<end].starts(with: "://".utf8),
           bytes[..<colon].allSatisfy(Self.isSchemeByte) {
            scheme = Self.asciiLowercased(bytes[..<colon])
            let authorityStart = bytes.index(colon, offsetBy: 3)
            let authorityEnd = bytes[authorityStart..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
            var hostStart = authorityStart
            if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
                hostStart = bytes.index(after: at)
            }
            var hostEnd = authorityEnd
            var portStart: String.Index?
            if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "["),
               let close = bytes[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) {
                hostEnd = bytes.index(after: close)
                if hostEnd < authorityEnd, bytes[hostEnd] == UInt8(ascii: ":") { portStart = bytes.index(after: hostEnd) }
            } else if let colon = bytes[hostStart..<authorityEnd].lastIndex(of: UInt8(ascii: ":")) {
                hostEnd = colon
                portStart = bytes.index(after: colon)
            }
            host = Self.asciiLowercased(bytes[hostStart..<hostEnd])
            if let portStart, let value = Self.decimal(bytes[portStart..<authorityEnd]), value > 0, value <= 65535,
               value != Self.defaultPort(scheme) {
                port = value
            }
            rest = authorityEnd
        }
        path = rest < end ? text[rest..<end] : "/"
    }

    /// `scheme://host[:port]`, or just the host when there is no scheme.
    public var origin: String {
        let hostAndPort = port.map { "\(host):\($0)" } ?? host
        return scheme.isEmpty ? hostAndPort : "\(scheme)://\(hostAndPort)"
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// The bytes with ASCII letters lowercased; other bytes (UTF-8 of an IDN) are kept.
    static func asciiLowercased(_ bytes: Substring.UTF8View) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            var count = 0
            for byte in bytes {
                buffer[count] = byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte
                count += 1
            }
            return count
        }
    }

    /// 1–5 ASCII digits as a number, nil otherwise.
    private static func decimal(_ bytes: Substring.UTF8View) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 5 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
