import VigilCore
import VigilStore

/// An ``EventSink`` that can say whether an event is durably stored when the call returns.
///
/// Crash recovery deletes a raw report only once its event is stored: with a durable sink,
/// only when ``emitDurably(_:)`` returned true (otherwise the report is kept for the next
/// launch); with any other sink, once ``EventSink/emit(_:)`` returned (or, for the SDK's own
/// pipeline, once the store behind its gate has flushed). The on-device store conforms: its
/// `enqueue(_:)` writes and `fsync`s a critical event (a crash) before it returns.
public protocol DurableEventSink: EventSink {
    /// Stores `event`; true when it is on stable storage on return.
    func emitDurably(_ event: Event) -> Bool
}

extension EventStore: DurableEventSink {
    /// Enqueues `event`; true when it was written and `fsync`ed on return (critical events,
    /// crashes among them, are; see `EventStore.enqueue(_:)`).
    public func emitDurably(_ event: Event) -> Bool {
        enqueue(event)
    }
}

extension JSONLinesFileSink: DurableEventSink {
    /// Appends `event` and `fsync`s the file; true when the line was written.
    public func emitDurably(_ event: Event) -> Bool {
        let before = written
        emit(event)
        guard written > before else { return false }
        synchronize()
        return true
    }
}

extension EventSinkGroup: DurableEventSink {
    /// Hands `event` to every sink; true when every durable member stored it (members that
    /// cannot tell are taken at their word once `emit` returned).
    public func emitDurably(_ event: Event) -> Bool {
        var stored = true
        for sink in sinks {
            if let durable = sink as? any DurableEventSink {
                stored = durable.emitDurably(event) && stored
            } else {
                sink.emit(event)
            }
        }
        return stored
    }
}
