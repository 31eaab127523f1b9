import Foundation
import VigilCore

/// An ``EventSink`` in front of another that applies the remote configuration to every
/// event: the kill switch, the module switches and the per-type sampling rates. The
/// configuration can be replaced at any time (``update(_:)``) and applies to the next event.
///
/// Cost per event: one lock, a dictionary lookup and, for sampled types, one random draw.
public final class EventGate: EventSink, @unchecked Sendable {
    /// Events the gate let through or stopped, by cause.
    public struct Statistics: Sendable, Hashable {
        /// Events handed on to the downstream sink.
        public var passed = 0
        /// Stopped by the global kill switch.
        public var droppedDisabled = 0
        /// Stopped because their module is switched off.
        public var droppedModuleOff = 0
        /// Sampled out.
        public var droppedSampled = 0
    }

    private let downstream: any EventSink
    private let lock = NSLock()
    private var configuration: RemoteConfig
    private var generator: SeededGenerator
    private var counters = Statistics()

    /// A gate in front of `downstream`; `seed` fixes the sampling draws.
    public init(downstream: any EventSink, configuration: RemoteConfig, seed: UInt64? = nil) {
        self.downstream = downstream
        self.configuration = configuration
        var system = SystemRandomNumberGenerator()
        generator = SeededGenerator(seed: seed ?? system.next())
    }

    /// Replaces the configuration.
    public func update(_ configuration: RemoteConfig) {
        lock.lock()
        self.configuration = configuration
        lock.unlock()
    }

    public func emit(_ event: Event) {
        lock.lock()
        let verdict: WritableKeyPath<Statistics, Int>?
        if !configuration.enabled {
            verdict = \.droppedDisabled
        } else if let module = RemoteConfigModule(producing: event.type), !configuration.isEnabled(module) {
            verdict = \.droppedModuleOff
        } else {
            let rate = configuration.samplingRate(for: event.type)
            if rate >= 1 {
                verdict = nil
            } else {
                let draw = Double(generator.next() >> 11) / Double(1 << 53)
                verdict = draw < rate ? nil : \.droppedSampled
            }
        }
        if let verdict { counters[keyPath: verdict] += 1 } else { counters.passed += 1 }
        lock.unlock()
        if verdict == nil { downstream.emit(event) }
    }

    /// Counters so far.
    public func statistics() -> Statistics {
        lock.lock()
        defer { lock.unlock() }
        return counters
    }
}
