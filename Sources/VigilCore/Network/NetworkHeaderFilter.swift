/// Keeps only allow-listed headers of a request or response: by default none.
///
/// Credential headers are refused even when listed, because a telemetry pipeline is the wrong
/// place for them and a misconfiguration should not leak them.
public struct NetworkHeaderFilter: Sendable, Hashable {
    /// Headers never recorded (lowercase): credentials and cookies.
    public static let neverRecorded: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
    ]

    private let allowed: Set<String>

    /// A filter letting `names` through (any case), minus ``neverRecorded``.
    public init(allowing names: Set<String>) {
        allowed = Set(names.map { $0.lowercased() }).subtracting(Self.neverRecorded)
    }

    /// Whether nothing is let through (the default): the adapters then skip reading headers.
    public var isEmpty: Bool { allowed.isEmpty }

    /// The allowed headers of `headers`, names lowercased; nil when none is left.
    public func filter(_ headers: [String: String]) -> [String: String]? {
        guard !allowed.isEmpty else { return nil }
        var kept: [String: String] = [:]
        for (name, value) in headers {
            let lowered = name.lowercased()
            if allowed.contains(lowered) { kept[lowered] = value }
        }
        return kept.isEmpty ? nil : kept
    }
}
