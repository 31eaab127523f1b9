/// A set of host names and wildcard patterns, matched case-insensitively: `api.example.com`
/// matches that host only, `*.example.com` matches every subdomain of `example.com` (not the
/// domain itself), and `*` matches every host.
public struct HostPatternSet: Sendable, Hashable, ExpressibleByArrayLiteral {
    private var exact: Set<String> = []
    private var suffixes: [String] = []
    private var matchesAll = false

    /// The patterns as given (lowercased).
    public private(set) var patterns: [String] = []

    /// A set of `patterns`; empty patterns are ignored.
    public init(_ patterns: [String]) {
        for raw in patterns {
            let pattern = raw.trimmingASCIIWhitespace().lowercased()
            guard !pattern.isEmpty else { continue }
            self.patterns.append(pattern)
            if pattern == "*" {
                matchesAll = true
            } else if pattern.hasPrefix("*.") {
                suffixes.append(String(pattern.dropFirst()))
            } else {
                exact.insert(pattern)
            }
        }
    }

    public init(arrayLiteral elements: String...) { self.init(elements) }

    /// Whether no pattern is set.
    public var isEmpty: Bool { patterns.isEmpty }

    /// Whether `host` (any case) matches a pattern.
    public func contains(host: String) -> Bool {
        if matchesAll { return true }
        if exact.isEmpty && suffixes.isEmpty { return false }
        let lowered = host.lowercased()
        if exact.contains(lowered) { return true }
        return suffixes.contains { lowered.hasSuffix($0) && lowered.count > $0.count }
    }
}

extension String {
    func trimmingASCIIWhitespace() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
