/// Turns main-thread samples into distinct stacks with counts and names the hot stack.
///
/// The hot stack is the most frequent common prefix: starting at the outermost frame, it keeps
/// descending into the frame that more than ``hotStackShare`` of all samples pass through, and
/// stops where no single frame does. Samples of one blocking call usually differ only in their
/// innermost frames (the program counter moves inside the blocking function), so the hot stack
/// is the part they agree on: stable from one hang to the next, which is what annealing and
/// the daily cap key on. When not even the outermost frame is shared by that share of the
/// samples, the hot stack falls back to the most frequent distinct stack.
///
/// Cost: O(samples × depth) time, O(samples) extra memory. Pure and `Sendable`.
public struct StackAggregator: Sendable, Hashable {
    /// Share of all samples a frame must exceed to belong to the hot stack (0 ..< 1).
    public var hotStackShare: Double
    /// Distinct stacks listed in an aggregate; the rest are counted as omitted.
    public var maxStacks: Int

    /// An aggregator with the schema's default bounds.
    public init(hotStackShare: Double = 0.5, maxStacks: Int = 64) {
        self.hotStackShare = hotStackShare.isFinite ? min(max(hotStackShare, 0), 0.99) : 0.5
        self.maxStacks = max(1, maxStacks)
    }

    /// Aggregates `samples` (any order; only their frames matter).
    public func aggregate(_ samples: [StackSample]) -> StackAggregate {
        aggregate(stacks: samples.map(\.frames))
    }

    /// Aggregates raw stacks, each innermost first.
    public func aggregate(stacks raw: [[Address]]) -> StackAggregate {
        guard !raw.isEmpty else { return .empty }
        var countByStack: [[Address]: Int] = [:]
        var firstSeen: [[Address]] = []
        for stack in raw {
            if let existing = countByStack[stack] {
                countByStack[stack] = existing + 1
            } else {
                countByStack[stack] = 1
                firstSeen.append(stack)
            }
        }
        // Stable sort by count: ties keep the order in which stacks were first seen.
        let ordered = firstSeen.enumerated()
            .sorted { lhs, rhs in
                let (a, b) = (countByStack[lhs.element] ?? 0, countByStack[rhs.element] ?? 0)
                return a != b ? a > b : lhs.offset < rhs.offset
            }
            .map { StackCount(frames: $0.element, count: countByStack[$0.element] ?? 0) }
        let listed = Array(ordered.prefix(maxStacks))
        let omitted = ordered.dropFirst(maxStacks)
        return StackAggregate(stacks: listed, hotStack: hotStack(of: raw, fallback: ordered.first?.frames),
                              sampleCount: raw.count, omittedStacks: omitted.count,
                              omittedSamples: omitted.reduce(0) { $0 + $1.count })
    }

    private func hotStack(of raw: [[Address]], fallback: [Address]?) -> [Address]? {
        let total = raw.count
        let needed = Double(total) * hotStackShare
        var group = Array(raw.indices)
        var prefix: [Address] = []  // outermost first
        var depth = 0
        while true {
            var counts: [Address: Int] = [:]
            for index in group {
                let stack = raw[index]
                guard depth < stack.count else { continue }
                counts[stack[stack.count - 1 - depth], default: 0] += 1
            }
            guard let best = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }),
                  Double(best.value) > needed
            else { break }
            // A tie at the top means the samples split evenly here: the common part ends.
            if counts.values.filter({ $0 == best.value }).count > 1 { break }
            prefix.append(best.key)
            group = group.filter { index in
                let stack = raw[index]
                return depth < stack.count && stack[stack.count - 1 - depth] == best.key
            }
            depth += 1
        }
        if prefix.isEmpty { return fallback }
        return prefix.reversed()
    }
}
