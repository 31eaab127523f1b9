/// One explicit route template of ``URLTemplateRules/routes``, split into segments once.
struct URLRoute: Sendable, Hashable {
    enum Segment: Sendable, Hashable {
        case literal(Substring)
        case parameter
    }

    /// Lowercased host the route is limited to, nil for any host.
    let host: String?
    let segments: [Segment]
    /// The path as written, used as the template when the route matches.
    let path: String

    init?(_ text: String) {
        guard Self.isWellFormed(text), let slash = text.firstIndex(of: "/") else { return nil }
        let hostPart = text[..<slash]
        host = hostPart.isEmpty ? nil : hostPart.lowercased()
        path = String(text[slash...])
        segments = text[slash...].split(separator: "/", omittingEmptySubsequences: true).map {
            $0.hasPrefix(":") ? .parameter : .literal($0)
        }
    }

    /// Whether `text` is `/path…` or `host/path…` (a host has a dot, is `localhost` or an IPv6
    /// literal, so `users/:id` is refused rather than read as host `users`) with no query,
    /// fragment or spaces.
    static func isWellFormed(_ text: String) -> Bool {
        guard let slash = text.firstIndex(of: "/"), text.utf8.count <= 1024 else { return false }
        let host = text[..<slash]
        if !host.isEmpty && !(host.contains(".") || host == "localhost" || host.hasPrefix("[")) { return false }
        if host.contains(":") && !host.hasPrefix("[") { return false }
        return !text.contains(where: { $0 == "?" || $0 == "#" || $0 == " " })
    }

    /// Whether `pathSegments` (of a URL on `urlHost`) match this route.
    func matches(host urlHost: String, pathSegments: [Substring]) -> Bool {
        if let host, host != urlHost { return false }
        guard segments.count == pathSegments.count else { return false }
        for (segment, actual) in zip(segments, pathSegments) {
            if case .literal(let literal) = segment, literal != actual { return false }
        }
        return true
    }
}
