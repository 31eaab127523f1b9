import VigilCore

/// An ``EventSink`` that hands every event to several sinks in order, e.g. the SDK's store and
/// `vigil-sample`'s `--out` file.
public struct EventSinkGroup: EventSink {
    /// The sinks, in delivery order.
    public let sinks: [any EventSink]

    public init(_ sinks: [any EventSink]) {
        self.sinks = sinks
    }

    public func emit(_ event: Event) {
        for sink in sinks { sink.emit(event) }
    }
}
