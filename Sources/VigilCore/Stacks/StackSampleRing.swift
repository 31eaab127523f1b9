/// A bounded store of stack samples: a ring that overwrites its oldest sample when full, and
/// can thin itself to every other sample so that a long hang stays evenly covered.
///
/// Memory is bounded by ``capacity`` samples (each holding its own frames). Appending is O(1);
/// ``thin()`` and ``samples`` are O(count). Value type; the owner serialises access.
public struct StackSampleRing: Sendable, Hashable {
    /// Most samples kept at once.
    public let capacity: Int
    /// Samples overwritten because the ring was full (not counting ``thin()``).
    public private(set) var overwritten: Int = 0
    private var storage: [StackSample] = []
    private var head = 0  // index of the oldest sample once storage is full

    /// An empty ring holding at most `capacity` samples (at least 1).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        storage.reserveCapacity(min(self.capacity, 1024))
    }

    /// Number of samples held.
    public var count: Int { storage.count }
    /// Whether the ring holds ``capacity`` samples.
    public var isFull: Bool { storage.count == capacity }
    /// Whether the ring is empty.
    public var isEmpty: Bool { storage.isEmpty }

    /// The samples, oldest first.
    public var samples: [StackSample] {
        guard isFull, head != 0 else { return storage }
        return Array(storage[head...] + storage[..<head])
    }

    /// Adds `sample`, overwriting the oldest one when the ring is full.
    public mutating func append(_ sample: StackSample) {
        if storage.count < capacity {
            storage.append(sample)
        } else {
            storage[head] = sample
            head = (head + 1) % capacity
            overwritten += 1
        }
    }

    /// Keeps every other sample (the 1st, 3rd, 5th … oldest-first), halving the count, so that
    /// samples taken at a steady cadence stay evenly spaced at twice the interval.
    public mutating func thin() {
        let ordered = samples
        storage = ordered.enumerated().compactMap { $0.offset % 2 == 0 ? $0.element : nil }
        head = 0
    }

    /// Drops every sample taken before `instant`.
    public mutating func removeSamples(before instant: MonotonicInstant) {
        let kept = samples.filter { $0.instant >= instant }
        storage = kept
        head = 0
    }

    /// Empties the ring (keeps ``overwritten``).
    public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        head = 0
    }
}
