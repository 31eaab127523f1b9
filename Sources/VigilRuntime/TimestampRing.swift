import CVigilRuntime
import VigilCore

/// One timestamped observation handed from the main thread to the monitoring queue: a code
/// (a run-loop activity's raw bits, or a frame's nominal duration in nanoseconds) and when it
/// happened.
public struct TimestampedCode: Sendable, Hashable {
    /// What was observed; its meaning depends on the ring's producer.
    public var code: UInt32
    /// When, on the monotonic clock of the producer's ``VigilClock``.
    public var instant: MonotonicInstant

    /// An observation of `code` at `instant`.
    public init(code: UInt32, instant: MonotonicInstant) {
        self.code = code
        self.instant = instant
    }
}

/// A wait-free single-producer/single-consumer ring of ``TimestampedCode``s, over the C ring
/// in `vigil_activity_ring.h`.
///
/// The producer (one thread, usually the main thread) calls ``push(code:instant:)``: a few
/// atomic operations, no lock, no allocation; a full ring drops the record and counts it in
/// ``dropped``. The consumer (one other thread or serial queue) calls ``drain(_:)``.
public final class TimestampRing: @unchecked Sendable {
    private let ring: OpaquePointer
    private let scratch: UnsafeMutablePointer<vigil_activity_record>
    private let scratchCount: Int

    /// Makes a ring of at least `capacity` records (rounded up to a power of two, at most
    /// 1 048 576). Returns nil when memory is short. Costs 16 bytes per record.
    public init?(capacity: Int) {
        guard capacity > 0, capacity <= 1 << 20,
              let ring = vigil_activity_ring_create(UInt32(capacity)) else { return nil }
        self.ring = ring
        scratchCount = min(capacity, 1024)
        scratch = .allocate(capacity: scratchCount)
    }

    deinit {
        vigil_activity_ring_destroy(ring)
        scratch.deallocate()
    }

    /// Appends a record. Producer thread only; wait-free.
    @inline(__always)
    public func push(code: UInt32, instant: MonotonicInstant) {
        vigil_activity_ring_push(ring, code, instant.nanoseconds)
    }

    /// Hands every record pushed so far to `body`, oldest first. Consumer only.
    public func drain(_ body: (TimestampedCode) -> Void) {
        while true {
            let count = Int(vigil_activity_ring_drain(ring, scratch, UInt32(scratchCount)))
            for index in 0..<count {
                let record = scratch[index]
                body(TimestampedCode(code: record.activity, instant: MonotonicInstant(nanoseconds: record.timestamp_ns)))
            }
            if count < scratchCount { return }
        }
    }

    /// Records dropped because the consumer fell behind, since creation.
    public var dropped: UInt64 { vigil_activity_ring_dropped(ring) }

    /// The last record pushed, or nil before the first push. Any thread.
    public var latest: TimestampedCode? {
        let record = vigil_activity_ring_latest(ring)
        guard record.timestamp_ns != 0 else { return nil }
        return TimestampedCode(code: record.activity, instant: MonotonicInstant(nanoseconds: record.timestamp_ns))
    }
}
