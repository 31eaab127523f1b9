/// A `/proc` file's text could not be read as expected: which file, which field, where, and why.
public struct ProcParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// The text was empty.
        case empty
        /// The text was longer than the parser accepts (bytes); `/proc` files of interest are
        /// small, so this is not a real `/proc` file.
        case tooLarge(Int)
        /// The field is absent.
        case missingField
        /// The field is not a number in the expected form; the offending text (at most 40
        /// characters).
        case notANumber(String)
        /// The text's structure is not the file's (e.g. no parentheses around `comm`).
        case malformed(String)
        /// The value is a number but impossible (e.g. zero clock ticks per second).
        case outOfRange(String)
    }

    /// The file the text came from, e.g. `/proc/self/stat`.
    public var file: String
    /// The field, e.g. `starttime (field 22)`.
    public var field: String
    /// Byte offset in the text where the problem is, when known.
    public var offset: Int?
    /// What was wrong.
    public var reason: Reason

    /// An error about `field` of `file`.
    public init(file: String, field: String, offset: Int? = nil, reason: Reason) {
        self.file = file
        self.field = field
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        let place = offset.map { " at byte \($0)" } ?? ""
        let why: String
        switch reason {
        case .empty: why = "the text is empty"
        case .tooLarge(let bytes): why = "the text is \(bytes) bytes, too large for this file"
        case .missingField: why = "the field is missing"
        case .notANumber(let text): why = "expected a number, found \"\(text)\""
        case .malformed(let detail): why = detail
        case .outOfRange(let detail): why = detail
        }
        return "\(file): \(field)\(place): \(why)"
    }
}
