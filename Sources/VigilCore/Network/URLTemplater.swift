/// Turns concrete request URLs into low-cardinality route templates:
/// `https://api.example.com/users/42/avatar?size=2#top` → `https://api.example.com/users/:id/avatar`.
///
/// Explicit routes (``URLTemplateRules/routes``) win; otherwise each path segment that looks like
/// an id (number, UUID, long hex, base64-like token — see ``SegmentFolding``) becomes the
/// placeholder, keeping a file extension (`1234.png` → `:id.png`). User info is always dropped,
/// the query and fragment unless the rules keep them.
///
/// A value type with no shared state: safe from any thread. Cost: one pass over the URL's
/// bytes plus one pass per segment; no regular expressions, no Foundation URL parsing.
public struct URLTemplater: Sendable {
    /// The rules in force (clamped).
    public let rules: URLTemplateRules
    private let routes: [URLRoute]

    /// A templater applying `rules` (clamped into range; malformed routes are skipped).
    public init(rules: URLTemplateRules = URLTemplateRules()) {
        let clamped = rules.clamped()
        self.rules = clamped
        routes = clamped.routes.compactMap(URLRoute.init)
    }

    /// The template and the host of `url` (an absolute URL string).
    public func template(for url: String) -> (template: String, host: String) {
        let parts = URLParts(url)
        return (template(parts), parts.host)
    }

    /// The template of already split URL parts.
    public func template(_ parts: URLParts) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(parts.scheme.utf8.count + parts.host.utf8.count + parts.path.utf8.count + 16)
        if !parts.scheme.isEmpty {
            out.append(contentsOf: parts.scheme.utf8)
            out.append(contentsOf: "://".utf8)
        }
        out.append(contentsOf: parts.host.utf8)
        if let port = parts.port {
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: String(port).utf8)
        }
        appendPathTemplate(host: parts.host, path: parts.path, to: &out)
        if let query = parts.query, !query.isEmpty, rules.query != .drop {
            out.append(UInt8(ascii: "?"))
            out.append(contentsOf: queryTemplate(query).utf8)
        }
        if rules.keepFragment, let fragment = parts.fragment, !fragment.isEmpty {
            out.append(UInt8(ascii: "#"))
            out.append(contentsOf: fragment.utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The template of a path alone (`/users/42` → `/users/:id`), for a URL on `host`.
    public func pathTemplate(host: String = "", path: Substring) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count + 8)
        appendPathTemplate(host: host, path: path, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func appendPathTemplate(host: String, path: Substring, to out: inout [UInt8]) {
        let segments = Self.segments(of: path)
        if !routes.isEmpty {
            for route in routes where route.matches(host: host, pathSegments: segments) {
                out.append(contentsOf: route.path.utf8)
                return
            }
        }
        if segments.isEmpty {
            out.append(UInt8(ascii: "/"))
            return
        }
        for (index, segment) in segments.enumerated() {
            if index == rules.maximumSegments {
                out.append(contentsOf: "/…".utf8)
                return
            }
            out.append(UInt8(ascii: "/"))
            appendFolded(segment, to: &out)
        }
        if path.utf8.last == UInt8(ascii: "/") { out.append(UInt8(ascii: "/")) }
    }

    /// The non-empty `/`-separated segments of `path`, found on its UTF-8 bytes.
    static func segments(of path: Substring) -> [Substring] {
        var result: [Substring] = []
        let bytes = path.utf8
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                if start < index { result.append(path[start..<index]) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start < bytes.endIndex { result.append(path[start..<bytes.endIndex]) }
        return result
    }

    /// `segment` or the placeholder when it is an id; a trailing file extension is kept.
    public func fold(_ segment: Substring) -> String {
        var out: [UInt8] = []
        appendFolded(segment, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func appendFolded(_ segment: Substring, to out: inout [UInt8]) {
        if !rules.keptSegments.isEmpty, rules.keptSegments.contains(String(segment)) {
            out.append(contentsOf: segment.utf8)
            return
        }
        if isIdentifier(segment) {
            out.append(contentsOf: rules.placeholder.utf8)
            return
        }
        let bytes = segment.utf8
        if let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex {
            let stem = segment[..<dot]
            let ext = segment[bytes.index(after: dot)...]
            if Self.isExtension(ext), isIdentifier(stem) {
                out.append(contentsOf: rules.placeholder.utf8)
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: ext.utf8)
                return
            }
        }
        out.append(contentsOf: bytes)
    }

    /// Whether `segment` is an id under the enabled ``SegmentFolding`` kinds.
    public func isIdentifier(_ segment: Substring) -> Bool {
        guard !segment.isEmpty else { return false }
        let folding = rules.folding
        let bytes = segment.utf8
        if folding.contains(.numeric), Self.isNumber(bytes) { return true }
        if folding.contains(.uuid), Self.isUUID(bytes) { return true }
        if folding.contains(.hex), bytes.count >= rules.minimumHexLength, bytes.allSatisfy(Self.isHexDigit) { return true }
        if folding.contains(.token), bytes.count >= rules.minimumTokenLength, Self.isToken(bytes) { return true }
        return false
    }

    private func queryTemplate(_ query: Substring) -> String {
        var pieces: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring?
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair
                value = nil
            }
            switch rules.query {
            case .drop:
                return ""
            case .names:
                pieces.append(value == nil ? String(name) : name + "=" + rules.placeholder)
            case .foldedValues:
                pieces.append(value.map { name + "=" + fold($0) } ?? String(name))
            }
        }
        return pieces.joined(separator: "&")
    }

    // MARK: - Byte classes

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }

    /// `-?[0-9]+([.,][0-9]+)?`
    static func isNumber(_ bytes: Substring.UTF8View) -> Bool {
        guard !bytes.isEmpty else { return false }
        var index = bytes.startIndex
        if bytes[index] == UInt8(ascii: "-") { index = bytes.index(after: index) }
        var digits = 0
        var sawSeparator = false
        var digitsAfterSeparator = 0
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte >= 0x30 && byte <= 0x39 {
                if sawSeparator { digitsAfterSeparator += 1 } else { digits += 1 }
            } else if (byte == UInt8(ascii: ".") || byte == UInt8(ascii: ",")) && !sawSeparator && digits > 0 {
                sawSeparator = true
            } else {
                return false
            }
            index = bytes.index(after: index)
        }
        return digits > 0 && (!sawSeparator || digitsAfterSeparator > 0)
    }

    /// 8-4-4-4-12 hex digits.
    static func isUUID(_ bytes: Substring.UTF8View) -> Bool {
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            switch offset {
            case 8, 13, 18, 23: if byte != UInt8(ascii: "-") { return false }
            default: if !isHexDigit(byte) { return false }
            }
        }
        return true
    }

    /// Base64/base64url alphabet (plus `=` padding and `.` as in JWTs), with at least one
    /// letter and one digit so that long words and dash-separated slugs without numbers stay.
    static func isToken(_ bytes: Substring.UTF8View) -> Bool {
        var letters = 0
        var digits = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): letters += 1
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "."),
                 UInt8(ascii: "~"): break
            default: return false
            }
        }
        return letters > 0 && digits > 0
    }

    /// 1–8 ASCII letters or digits with at least one letter (`png`, `json`, `mp4`).
    static func isExtension(_ text: Substring) -> Bool {
        let bytes = text.utf8
        guard (1...8).contains(bytes.count) else { return false }
        var letter = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): letter = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"): break
            default: return false
            }
        }
        return letter
    }
}
