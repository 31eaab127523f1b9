/// A source of symbols for binary images, identified by build UUID (Mach-O) or build id
/// (ELF): dSYMs, debug files or SymCaches.
///
/// ``ReportSymbolicator`` asks it about every frame whose image has a UUID. Implementations
/// must be thread-safe if shared; lookups should be fast (a report has thousands of frames,
/// though the symbolicator caches repeated offsets).
public protocol SymbolLookup: Sendable {
    /// Whether symbols for the image `uuid` (canonical form, see ``ImageUUID``) of
    /// architecture `arch` are available.
    func hasSymbols(forImage uuid: String, arch: String?) -> Bool

    /// The functions at `imageOffset` bytes from the image's load address: inlined functions
    /// first (innermost), the function that contains them last. Empty when nothing covers the
    /// offset. `isReturnAddress` asks to move a caller frame's return address back into its
    /// call instruction (by the architecture's instruction size) before the lookup.
    func symbolicate(image uuid: String, arch: String?, imageOffset: UInt64, isReturnAddress: Bool) -> [SymbolicatedLocation]
}

/// One function (possibly inlined) at an address.
public struct SymbolicatedLocation: Sendable, Hashable, Codable {
    /// Function name, demangled.
    public var function: String
    /// Image offset where the function (or the inlined range) starts, when known; the frame's
    /// `symbolLocation` is measured from it.
    public var start: UInt64?
    /// Source file (as recorded in the debug information; writers keep the last component).
    public var file: String?
    /// Source line; 0 when the compiler recorded none.
    public var line: Int?

    public init(function: String, start: UInt64? = nil, file: String? = nil, line: Int? = nil) {
        self.function = function
        self.start = start
        self.file = file
        self.line = line
    }
}
