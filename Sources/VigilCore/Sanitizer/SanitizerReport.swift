/// What the ``EventSanitizer`` changed in one event; all zero for a clean event.
public struct SanitizerReport: Sendable, Hashable {
    /// Strings that had control characters, line/paragraph separators or invalid scalars removed.
    public var stringsCleaned = 0
    /// Strings cut to their byte limit.
    public var stringsTruncated = 0
    /// Arrays or dictionaries cut to their element limit.
    public var collectionsTruncated = 0
    /// Non-finite numbers (NaN, ±infinity) replaced by zero.
    public var numbersReplaced = 0

    /// Nothing changed yet.
    public init() {}

    /// Whether anything was changed.
    public var changed: Bool {
        stringsCleaned + stringsTruncated + collectionsTruncated + numbersReplaced > 0
    }
}
