extension SymCache {
    /// The frames at `relativeAddress` (an offset from the image's start: `address -
    /// loadAddress` of a runtime address), innermost first; empty when nothing covers it.
    ///
    /// Pass `isReturnAddress: true` for caller frames of a stack (every frame but the crashing
    /// one): a return address points after the call, possibly into the next line or function,
    /// so it is moved back into the call instruction first (−4 on arm64, −2 on 32-bit ARM,
    /// −1 on x86).
    public func lookup(relativeAddress: UInt64, isReturnAddress: Bool = false) -> [SymbolicatedFrame] {
        var address = relativeAddress
        if isReturnAddress {
            let adjustment = Architecture.returnAddressAdjustment(arch)
            guard address >= adjustment else { return [] }
            address -= adjustment
        }
        guard var location = innermostLocation(address) else { return [] }
        var frames: [SymbolicatedFrame] = []
        while true {
            let fields = locationFields(location)
            var frame = SymbolicatedFrame(rawFunction: nil, function: nil, simplifiedFunction: nil, file: nil,
                                          line: fields.line, isInlined: fields.parent != 0, functionAddress: nil)
            if fields.function != 0 {
                let names = names(ofFunction: fields.function - 1)
                frame.rawFunction = names.raw
                frame.function = names.demangled
                frame.simplifiedFunction = names.simplified
                frame.functionAddress = functionRecord(fields.function - 1).entry
            }
            if fields.file != 0 { frame.file = path(ofFile: fields.file - 1) }
            frames.append(frame)
            guard fields.parent != 0, frames.count < 1024 else { break }
            location = fields.parent - 1
        }
        return frames
    }

    /// The frames at a runtime `address` of an image loaded at `loadAddress`.
    public func lookup(address: UInt64, loadAddress: UInt64, isReturnAddress: Bool = false) -> [SymbolicatedFrame] {
        guard address >= loadAddress else { return [] }
        return lookup(relativeAddress: address - loadAddress, isReturnAddress: isReturnAddress)
    }

    /// The frames at a file address (a vmaddr as the object file and `atos` without `-l` use it).
    public func lookup(vmAddress: UInt64, isReturnAddress: Bool = false) -> [SymbolicatedFrame] {
        guard vmAddress >= imageVMAddress else { return [] }
        return lookup(relativeAddress: vmAddress - imageVMAddress, isReturnAddress: isReturnAddress)
    }
}

/// A frame as indexes into its ``SymCache``'s function and file tables, for callers that
/// symbolicate many addresses and format names themselves (memoizing per index): no strings
/// are created by the lookup.
public struct FrameReference: Sendable, Hashable {
    /// The function's index for ``SymCache/functionNames(at:)``, or `nil` when unknown.
    public var function: Int?
    /// The file's index for ``SymCache/filePath(at:)``, or `nil` when unknown.
    public var file: Int?
    /// The source line; 0 when unknown.
    public var line: UInt32
    /// Whether this frame was inlined into the next one.
    public var isInlined: Bool
}

extension SymCache {
    /// Appends the frames at `relativeAddress` to `frames`, innermost first, and returns how
    /// many were appended (0 when nothing covers the address). Allocation-free when `frames`
    /// has capacity; see ``lookup(relativeAddress:isReturnAddress:)`` for the arguments.
    @discardableResult
    public func frameReferences(relativeAddress: UInt64, isReturnAddress: Bool = false,
                                into frames: inout [FrameReference]) -> Int {
        var address = relativeAddress
        if isReturnAddress {
            let adjustment = Architecture.returnAddressAdjustment(arch)
            guard address >= adjustment else { return 0 }
            address -= adjustment
        }
        guard var location = innermostLocation(address) else { return 0 }
        var count = 0
        while true {
            let fields = locationFields(location)
            frames.append(FrameReference(function: fields.function == 0 ? nil : fields.function - 1,
                                         file: fields.file == 0 ? nil : fields.file - 1,
                                         line: fields.line, isInlined: fields.parent != 0))
            count += 1
            guard fields.parent != 0, count < 1024 else { return count }
            location = fields.parent - 1
        }
    }

    /// The raw, demangled and simplified names of function `index` (from a ``FrameReference``),
    /// computed once and remembered. `index` must come from this cache.
    public func functionNames(at index: Int) -> (raw: String, demangled: String, simplified: String) {
        precondition(index >= 0 && index < functionCount, "function index \(index) is not in this SymCache")
        let names = names(ofFunction: index)
        return (names.raw, names.demangled, names.simplified)
    }

    /// The start of function `index`, relative to the image vmaddr, when known.
    public func functionAddress(at index: Int) -> UInt64? {
        precondition(index >= 0 && index < functionCount, "function index \(index) is not in this SymCache")
        return functionRecord(index).entry
    }

    /// The full path of file `index` (from a ``FrameReference``). `index` must come from this cache.
    public func filePath(at index: Int) -> String {
        precondition(index >= 0 && index < fileCount, "file index \(index) is not in this SymCache")
        return path(ofFile: index)
    }
}
