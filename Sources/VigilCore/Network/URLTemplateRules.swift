/// How ``URLTemplater`` turns a concrete URL into its route template: which segments are ids,
/// explicit routes that win over the heuristics, and what is kept of the query.
///
/// Defaults fold numbers, UUIDs, hex of 16+ digits and tokens of 20+ characters to `:id`, drop
/// the query and the fragment.
public struct URLTemplateRules: Sendable, Hashable {
    /// Explicit route templates, tried in order before any heuristic. A route is a path such
    /// as `/users/:userId/posts/:postId`, optionally preceded by a host
    /// (`api.example.com/users/:id`); a `:name` segment matches any one segment and is written
    /// as is, every other segment must match literally.
    public var routes: [String] = []
    /// Which id-like segments the heuristics fold. Default: all of them.
    public var folding: Set<SegmentFolding> = Set(SegmentFolding.allCases)
    /// Text written in place of a folded segment. Default `:id`.
    public var placeholder: String = ":id"
    /// Shortest hex string folded by ``SegmentFolding/hex``. Default 16.
    public var minimumHexLength: Int = 16
    /// Shortest token folded by ``SegmentFolding/token``. Default 20.
    public var minimumTokenLength: Int = 20
    /// Segments never folded, compared exactly (e.g. a numeric API version `2`).
    public var keptSegments: Set<String> = []
    /// What to keep of the query string. Default ``QueryRecording/drop``.
    public var query: QueryRecording = .drop
    /// Whether to keep the fragment (`#…`). Default false.
    public var keepFragment: Bool = false
    /// Path segments kept; deeper paths end in `/…`. Default 32.
    public var maximumSegments: Int = 32

    /// The defaults.
    public init() {}

    /// Every field forced into its valid range.
    public func clamped() -> URLTemplateRules {
        var result = self
        result.minimumHexLength = min(max(minimumHexLength, 8), 256)
        result.minimumTokenLength = min(max(minimumTokenLength, 8), 256)
        result.maximumSegments = min(max(maximumSegments, 1), 256)
        if result.placeholder.isEmpty || result.placeholder.utf8.count > 32 || result.placeholder.contains("/") {
            result.placeholder = ":id"
        }
        result.routes = Array(routes.prefix(512))
        return result
    }

    /// Problems with the current values, one per field, under `prefix`.
    public func problems(prefix: String) -> [ConfigurationProblem] {
        var found: [ConfigurationProblem] = []
        func check(_ ok: Bool, _ field: String, _ value: Any, _ expected: String) {
            if !ok { found.append(ConfigurationProblem(field: prefix + field, value: "\(value)", expected: expected)) }
        }
        check((8...256).contains(minimumHexLength), "minimumHexLength", minimumHexLength, "8...256")
        check((8...256).contains(minimumTokenLength), "minimumTokenLength", minimumTokenLength, "8...256")
        check((1...256).contains(maximumSegments), "maximumSegments", maximumSegments, "1...256")
        check(!placeholder.isEmpty && placeholder.utf8.count <= 32 && !placeholder.contains("/"), "placeholder",
              placeholder, "1...32 bytes without /")
        check(routes.count <= 512, "routes", routes.count, "at most 512 routes")
        for route in routes where !URLRoute.isWellFormed(route) {
            check(false, "routes", route, "a path starting with / (optionally after a host)")
        }
        return found
    }
}

/// What a URL template keeps of the query string.
public enum QueryRecording: String, Sendable, Hashable, CaseIterable, Codable {
    /// No query at all (the default): values often carry ids, tokens and personal data.
    case drop
    /// Parameter names in their original order, each value replaced by the placeholder:
    /// `?page=:id&sort=:id`.
    case names
    /// Names and values, each value folded by the same rules as a path segment: `?page=2`
    /// becomes `?page=:id`, `?sort=price` stays.
    case foldedValues
}
