/// The pieces of an absolute URL that a template is built from, split without Foundation's
/// URL parser so the result is the same on every platform and costs one pass over the bytes.
///
/// User info (`user:password@`) is never kept. The host is lowercased; a port equal to the
/// scheme's default is dropped.
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
    public init(_ text: String) {
        var rest = Substring(text)
        // Fragment and query are cut first: they may contain '/', ':' and '@'.
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        } else {
            fragment = nil
        }
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        } else {
            query = nil
        }
        scheme = ""
        host = ""
        port = nil
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://"),
           rest[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) {
            scheme = rest[..<colon].lowercased()
            rest = rest[rest.index(colon, offsetBy: 3)...]
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<authorityEnd]
            rest = rest[authorityEnd...]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            var hostPart = authority
            var portText: Substring = ""
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                hostPart = authority[...close]
                let after = authority[authority.index(after: close)...]
                if after.hasPrefix(":") { portText = after.dropFirst() }
            } else if let colon = authority.lastIndex(of: ":") {
                hostPart = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            }
            host = hostPart.lowercased()
            if let value = Int(portText), value > 0, value <= 65535, value != Self.defaultPort(scheme) {
                port = value
            }
        }
        path = rest.isEmpty ? "/" : rest
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
}
