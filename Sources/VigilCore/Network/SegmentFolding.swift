/// A kind of URL path segment that ``URLTemplater`` replaces with a placeholder because it is
/// an identifier rather than part of the route.
public enum SegmentFolding: String, Sendable, Hashable, CaseIterable, Codable {
    /// Decimal numbers: `42`, `2024`, `-7`, `3.14`.
    case numeric
    /// UUIDs in the 8-4-4-4-12 form, either case.
    case uuid
    /// Hex strings at least ``URLTemplateRules/minimumHexLength`` long (hashes, object ids).
    case hex
    /// Base64-like tokens at least ``URLTemplateRules/minimumTokenLength`` long that mix letters
    /// and digits (`dGhpcyBpcyBh2w`, slugs with numbers, short-link codes).
    case token
}
