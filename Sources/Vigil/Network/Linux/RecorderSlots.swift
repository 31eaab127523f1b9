#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import VigilCore

/// The instrumented configurations, one slot each.
///
/// FoundationNetworking gives a `URLProtocol` class no way to learn which session or
/// configuration a request came from, yet the recorder must forward each request with that
/// configuration's settings (additional headers, cookies, cache, timeouts). So every
/// instrumented configuration gets its own protocol class: `RecordingURLProtocolSlot<Index>`,
/// a generic subclass whose type argument is a distinct nesting depth of ``NextSlot``, which
/// reads its slot here. Slots are never reused (a session made from a configuration keeps its
/// protocol class for its whole life), so there are at most ``capacity``.
enum RecorderSlots {
    /// Configurations that can be instrumented in one process.
    static let capacity = 64

    private static let lock = NSLock()
    nonisolated(unsafe) private static var slots: [RecorderSlot] = []

    /// Claims a slot for `configuration` (a snapshot taken now, before the protocol class is
    /// added) and returns its protocol class; nil when every slot is taken.
    static func claim(recorder: NetworkRecorder, configuration: URLSessionConfiguration) -> AnyClass? {
        guard let snapshot = configuration.copy() as? URLSessionConfiguration else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard slots.count < capacity else { return nil }
        let index = slots.count
        slots.append(RecorderSlot(index: index, recorder: recorder, configuration: snapshot))
        return protocolClass(depth: index, FirstSlot.self)
    }

    /// The slot at `index`.
    static func slot(_ index: Int) -> RecorderSlot? {
        lock.lock()
        defer { lock.unlock() }
        return index >= 0 && index < slots.count ? slots[index] : nil
    }

    private static func protocolClass<Index: RecorderSlotIndex>(depth: Int, _ index: Index.Type) -> AnyClass {
        depth == 0 ? RecordingURLProtocolSlot<Index>.self : protocolClass(depth: depth - 1, NextSlot<Index>.self)
    }
}

/// A slot number carried by a type, so that each slot has its own protocol class.
protocol RecorderSlotIndex {
    static var index: Int { get }
}

/// Slot 0.
enum FirstSlot: RecorderSlotIndex {
    static var index: Int { 0 }
}

/// The slot after `Previous`.
enum NextSlot<Previous: RecorderSlotIndex>: RecorderSlotIndex {
    static var index: Int { Previous.index + 1 }
}

/// The protocol class of one slot.
final class RecordingURLProtocolSlot<Index: RecorderSlotIndex>: RecordingURLProtocol {
    override class var slotIndex: Int { Index.index }
}
#endif
