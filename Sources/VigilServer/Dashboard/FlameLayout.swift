/// Where each node of a call tree goes in a flame graph: one row per depth (the root on top),
/// each node as wide as its samples, children side by side from their parent's left edge,
/// heaviest first.
///
/// Positions are in samples (integers), so the layout is exact; the renderer scales them to
/// pixels. Pure; cost: O(nodes).
public struct FlameLayout: Sendable, Hashable {
    /// One drawn node.
    public struct Cell: Sendable, Hashable {
        /// The frame's name.
        public var name: String
        /// Whether it is the app's own code.
        public var inApp: Bool
        /// Samples through it (its width).
        public var samples: Int64
        /// Samples to its left on its row (its x).
        public var offset: Int64
        /// Row: 0 for the root.
        public var depth: Int
    }

    /// Every node, parents before their children.
    public private(set) var cells: [Cell] = []
    /// All samples (the root's width).
    public let total: Int64
    /// The number of rows.
    public private(set) var depth = 0

    /// Lays out `root` (already pruned by ``FlameTree/root(minimumFraction:maximumDepth:)``).
    public init(_ root: FlameNode) {
        total = root.samples
        var stack: [(FlameNode, Int64, Int)] = [(root, 0, 0)]
        while let (node, offset, level) = stack.popLast() {
            cells.append(Cell(name: node.name, inApp: node.inApp, samples: node.samples, offset: offset, depth: level))
            depth = max(depth, level + 1)
            var childOffset = offset
            var pending: [(FlameNode, Int64, Int)] = []
            for child in node.children {
                pending.append((child, childOffset, level + 1))
                childOffset += child.samples
            }
            stack.append(contentsOf: pending.reversed())
        }
    }
}
