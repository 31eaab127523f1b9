/// One frame of a symbolicated address: a function, and where in the source it is.
///
/// A lookup returns frames innermost first: every frame but the last was inlined into the
/// frame after it (``isInlined``), like `llvm-symbolizer --inlining` prints them.
public struct SymbolicatedFrame: Sendable, Hashable, CustomStringConvertible {
    /// The function's name as the debug information or symbol table spells it (a mangled
    /// linkage name for Swift and C++); `nil` when unknown.
    public var rawFunction: String?
    /// The demangled full name (`Shop.Cart.add(_:) -> ()`, `ns::f(int)`); the raw name when it
    /// is not mangled.
    public var function: String?
    /// The short name Xcode shows: no module, no argument or return types
    /// (`Cart.add(_:)`, `ns::f`).
    public var simplifiedFunction: String?
    /// The source file's full path as recorded at compile time; `nil` when unknown.
    public var file: String?
    /// The source line; 0 when unknown (compiler-generated code, or no line information).
    public var line: UInt32
    /// Whether this frame was inlined into the next frame of the same lookup.
    public var isInlined: Bool
    /// The function's start, relative to the image's vmaddr (the entry of the DWARF
    /// subprogram or symbol), when known; subtract it from the looked-up address for
    /// `function + offset`.
    public var functionAddress: UInt64?

    public init(rawFunction: String?, function: String?, simplifiedFunction: String?, file: String?, line: UInt32,
                isInlined: Bool, functionAddress: UInt64?) {
        self.rawFunction = rawFunction
        self.function = function
        self.simplifiedFunction = simplifiedFunction
        self.file = file
        self.line = line
        self.isInlined = isInlined
        self.functionAddress = functionAddress
    }

    /// The last path component of ``file``.
    public var fileName: String? {
        guard let file else { return nil }
        if let slash = file.lastIndex(where: { $0 == "/" || $0 == "\\" }) { return String(file[file.index(after: slash)...]) }
        return file
    }

    /// `function (File.swift:42)`, with `??` for unknown parts.
    public var description: String {
        "\(function ?? "??") (\(fileName ?? "??"):\(line))\(isInlined ? " [inlined]" : "")"
    }
}
