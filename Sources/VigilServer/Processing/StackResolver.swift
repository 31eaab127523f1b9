import VigilCore

/// Maps a stack's absolute addresses to images and offsets through the event's `images`,
/// symbolicates them through a ``SymbolTableSource`` and marks the app's own frames.
///
/// Return addresses (every frame but the first) are looked up inside the call instruction (the
/// symbol table knows the architecture's adjustment), so that a call at the very end of a
/// function resolves to that function.
/// Pure apart from the table source; cost: a binary search per frame plus the lookups.
public struct StackResolver {
    private let images: [ImageInfo]
    private let inApp: [Bool]
    private let tables: any SymbolTableSource

    /// A resolver for one event's images.
    public init(images: [ImageInfo], policy: InAppPolicy, tables: any SymbolTableSource) {
        let sorted = images.sorted { $0.loadAddress < $1.loadAddress }
        self.images = sorted
        self.inApp = sorted.map(policy.isInApp)
        self.tables = tables
    }

    /// The images whose symbols a lookup needed but no upload provided, after ``resolve(_:)`` calls.
    public private(set) var missing: [ImageInfo] = []
    /// Each image's table, looked up once per resolver (a stack has many frames per image).
    private var tableByImage: [Int: (any SymbolTable)?] = [:]

    /// Resolves `frames` (innermost first); an inlined location adds frames with `inlined` set.
    public mutating func resolve(_ frames: [Address]) -> [ResolvedFrame] {
        var result: [ResolvedFrame] = []
        result.reserveCapacity(frames.count)
        for (position, address) in frames.enumerated() {
            guard let index = imageIndex(containing: address) else {
                result.append(ResolvedFrame(address: address.hex))
                continue
            }
            let image = images[index]
            let offset = address.value - image.loadAddress.value
            let base = ResolvedFrame(address: address.hex, image: image.name, imageID: image.id, offset: offset,
                                     inApp: inApp[index])
            let table: (any SymbolTable)?
            if let known = tableByImage[index] {
                table = known
            } else {
                table = tables.table(debugID: image.id, arch: image.arch)
                tableByImage[index] = .some(table)
            }
            guard let table else {
                if !missing.contains(where: { $0.id == image.id }) { missing.append(image) }
                result.append(base)
                continue
            }
            let locations = table.locations(at: offset, isReturnAddress: position > 0)
            if locations.isEmpty {
                result.append(base)
                continue
            }
            for (depth, location) in locations.enumerated() {
                var frame = base
                frame.function = location.function
                frame.file = location.file
                frame.line = location.line
                frame.inlined = depth < locations.count - 1
                result.append(frame)
            }
        }
        return result
    }

    private func imageIndex(containing address: Address) -> Int? {
        var low = 0
        var high = images.count - 1
        var candidate: Int?
        while low <= high {
            let middle = (low + high) / 2
            if images[middle].loadAddress <= address {
                candidate = middle
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        guard let candidate, images[candidate].contains(address) else { return nil }
        return candidate
    }
}

/// Finds the symbol table of an image by debug id, or says there is none.
public protocol SymbolTableSource {
    /// The table for `debugID`, nil when no symbols were uploaded for it (or they cannot be read).
    func table(debugID: String, arch: String) -> (any SymbolTable)?
}

/// A source with no symbols at all (processing before any engine is plugged in, and tests).
public struct NoSymbolTables: SymbolTableSource {
    /// Creates the empty source.
    public init() {}
    public func table(debugID: String, arch: String) -> (any SymbolTable)? { nil }
}
