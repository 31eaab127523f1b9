/// One register of a roll-up's distinct-count sketch (``HyperLogLog``): the roll-up row and
/// the register's index.
public struct SketchRegisterKey: Sendable, Hashable, Comparable {
    /// The roll-up row (metric, release build as dimension, version, day).
    public var row: RollupKey
    /// Register index, 0 ..< ``HyperLogLog/registerCount``.
    public var register: Int

    public static func < (lhs: SketchRegisterKey, rhs: SketchRegisterKey) -> Bool {
        lhs.row != rhs.row ? lhs.row < rhs.row : lhs.register < rhs.register
    }
}
