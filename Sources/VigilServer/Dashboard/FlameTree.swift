/// One frame as a flame graph shows it: a name and whether it is the app's own code.
public struct FlameFrame: Sendable, Hashable, Codable {
    /// The symbolicated function (or `image + 0xoffset`, or the address).
    public var name: String
    /// Whether the frame's image is the app's own (``InAppPolicy``).
    public var inApp: Bool

    /// Creates a frame.
    public init(name: String, inApp: Bool) {
        self.name = name
        self.inApp = inApp
    }
}

/// Sampled stacks merged into one call tree: stacks that share their outermost frames share
/// the nodes for them, and every node counts the samples of every stack that passes through it.
///
/// Pure value; cost: O(frames) per added stack (a dictionary lookup per frame). The number of
/// nodes is capped (``maximumNodes``) so hostile input cannot grow it without bound: a stack
/// that would need a node past the cap stops at its deepest existing node, whose self count then
/// holds its samples, and ``truncated`` says so.
public struct FlameTree: Sendable {
    /// A node as stored: its frame, the samples through it and its place in the tree.
    struct Storage: Sendable {
        var frame: FlameFrame
        var samples: Int64
        var children: [Int]
    }

    private struct ChildKey: Hashable {
        var parent: Int
        var frame: FlameFrame
    }

    /// Nodes, the root (all samples) first.
    private(set) var nodes: [Storage] = [Storage(frame: FlameFrame(name: "all", inApp: false), samples: 0, children: [])]
    private var index: [ChildKey: Int] = [:]
    /// The most nodes the tree grows to.
    public let maximumNodes: Int
    /// Whether a stack was cut short because the node cap was reached.
    public private(set) var truncated = false
    /// Stacks added (each with its count).
    public private(set) var stacks = 0

    /// An empty tree of at most `maximumNodes` nodes (the root included).
    public init(maximumNodes: Int = 50_000) {
        precondition(maximumNodes >= 1, "the root needs a node")
        self.maximumNodes = maximumNodes
    }

    /// All samples merged so far.
    public var samples: Int64 { nodes[0].samples }

    /// Adds `count` samples of `stack`, given outermost frame first (the root's child first);
    /// a count below 1 adds nothing.
    public mutating func add(_ stack: [FlameFrame], count: Int64) {
        guard count > 0 else { return }
        stacks += 1
        nodes[0].samples += count
        var parent = 0
        for frame in stack {
            let key = ChildKey(parent: parent, frame: frame)
            let child: Int
            if let known = index[key] {
                child = known
            } else {
                guard nodes.count < maximumNodes else {
                    truncated = true
                    return
                }
                child = nodes.count
                nodes.append(Storage(frame: frame, samples: 0, children: []))
                nodes[parent].children.append(child)
                index[key] = child
            }
            nodes[child].samples += count
            parent = child
        }
    }

    /// The tree as nested nodes, heaviest child first (ties by name), keeping only nodes with at
    /// least `minimumFraction` of all samples, at most `maximumDepth` levels below the root, and
    /// at most `maximumNodes` nodes besides the root (the lightest go first: a node never
    /// outweighs its parent, so what is kept is still a tree hanging from the root).
    public func root(minimumFraction: Double = 0, maximumDepth: Int = Int.max, maximumNodes: Int = Int.max) -> FlameNode {
        var threshold = Double(samples) * max(0, minimumFraction)
        if maximumNodes < nodes.count - 1 {
            var weights: [Int64] = []
            var pending: [(Int, Int)] = [(0, 0)]
            while let (position, depth) = pending.popLast() {
                guard depth < maximumDepth else { continue }
                for child in nodes[position].children {
                    weights.append(nodes[child].samples)
                    pending.append((child, depth + 1))
                }
            }
            if weights.count > maximumNodes {
                weights.sort(by: >)
                threshold = max(threshold, Double(weights[max(0, maximumNodes)]) + 1)
            }
        }
        func build(_ position: Int, depth: Int) -> FlameNode {
            let node = nodes[position]
            var children: [FlameNode] = []
            if depth < maximumDepth {
                for child in sortedChildren(of: position) where Double(nodes[child].samples) >= threshold && nodes[child].samples > 0 {
                    children.append(build(child, depth: depth + 1))
                }
            }
            return FlameNode(name: node.frame.name, inApp: node.frame.inApp, samples: node.samples, children: children)
        }
        return build(0, depth: 0)
    }

    /// Children of node `position`, heaviest first, then by name and in-app flag (deterministic).
    func sortedChildren(of position: Int) -> [Int] {
        nodes[position].children.sorted { left, right in
            let a = nodes[left], b = nodes[right]
            if a.samples != b.samples { return a.samples > b.samples }
            if a.frame.name != b.frame.name { return a.frame.name < b.frame.name }
            return !a.frame.inApp && b.frame.inApp
        }
    }
}

/// One node of a merged call tree, as the API returns it.
public struct FlameNode: Sendable, Hashable, Codable {
    /// The frame's name (`all` for the root).
    public var name: String
    /// Whether the frame is the app's own code.
    public var inApp: Bool
    /// Samples of every stack through this node (its own and its children's).
    public var samples: Int64
    /// Callees, heaviest first.
    public var children: [FlameNode]

    /// Creates a node.
    public init(name: String, inApp: Bool, samples: Int64, children: [FlameNode] = []) {
        self.name = name
        self.inApp = inApp
        self.samples = samples
        self.children = children
    }

    /// Samples in which this frame itself was running (not one of the children kept).
    public var selfSamples: Int64 { samples - children.reduce(0) { $0 + $1.samples } }
}
