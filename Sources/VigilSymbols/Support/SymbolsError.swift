/// Why an object file, a debug file or a SymCache could not be read: what was wrong, and
/// where (a file offset, and the section when the bytes belong to one).
///
/// Every parser in `VigilSymbols` reports bad input with this type and never traps. The
/// ``description`` is meant for people ("the dSYM doesn't match" support questions), e.g.
/// `truncated: LC_SEGMENT_64 needs 72 bytes at file offset 0x20, 16 remain (in app.dSYM/…/app)`.
public struct SymbolsError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kind of problem, for callers that branch on it.
    public enum Kind: String, Sendable, Hashable {
        /// The file could not be opened, mapped or read.
        case io
        /// A structure runs past the end of its file, section or table.
        case truncated
        /// The file is not of a format this reader knows (wrong magic number).
        case badMagic
        /// An offset or a size points outside the file or section it refers to.
        case outOfBounds
        /// The bytes are inconsistent with the format (bad form, opcode, count or reference).
        case malformed
        /// A valid but unsupported variant (e.g. a big-endian ELF, DWARF version 6).
        case unsupported
        /// A count, depth or size exceeds what this reader accepts (absurd or hostile input).
        case limitExceeded
        /// The requested architecture is not in the file; the message lists those that are.
        case architectureNotFound
        /// The file has nothing to symbolicate with (no DWARF and no symbols).
        case noSymbols
    }

    /// The kind of problem.
    public var kind: Kind
    /// What was wrong, naming the structure or field (`"DW_FORM 0x55 in abbreviation 12"`).
    public var message: String
    /// Where in the file, as a byte offset from the start of the file (of the whole file, not
    /// of a fat slice); `nil` when the problem has no single place.
    public var fileOffset: UInt64?
    /// The section the bytes belong to, with the offset inside it, when the problem is inside a
    /// section (for compressed ELF sections, the offset is in the decompressed bytes).
    public var section: SectionPosition?
    /// The file's path, when the reader was opened from one.
    public var path: String?

    /// A position inside a named section.
    public struct SectionPosition: Sendable, Hashable {
        /// The section's name as the file spells it (`__debug_info`, `.debug_line`).
        public var name: String
        /// The byte offset inside the section's (decompressed) contents.
        public var offset: UInt64

        public init(name: String, offset: UInt64) {
            self.name = name
            self.offset = offset
        }
    }

    public init(_ kind: Kind, _ message: String, fileOffset: UInt64? = nil,
                section: SectionPosition? = nil, path: String? = nil) {
        self.kind = kind
        self.message = message
        self.fileOffset = fileOffset
        self.section = section
        self.path = path
    }

    /// This error with `path` filled in when it was missing.
    public func at(path: String?) -> SymbolsError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }

    public var description: String {
        var text = "\(kind.rawValue): \(message)"
        var places: [String] = []
        if let section { places.append("\(section.name)+0x\(String(section.offset, radix: 16))") }
        if let fileOffset { places.append("file offset 0x\(String(fileOffset, radix: 16))") }
        if !places.isEmpty { text += " at " + places.joined(separator: ", ") }
        if let path { text += " (in \(path))" }
        return text
    }
}
