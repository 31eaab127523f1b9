import VigilBLE
import VigilCore

/// A device the simulated radio hosts: what it advertises, its GATT table, and how it reacts
/// to a phone. Called on the simulation's scheduler.
public protocol SimulatedPeripheral: AnyObject {
    /// Its identity.
    var identifier: PeerIdentifier { get }
    /// The advertised local name.
    var advertisedName: String? { get }
    /// Advertised service UUIDs.
    var advertisedServices: [BLEUUID] { get }
    /// Signal strength at the phone (dBm).
    var rssi: Int { get }
    /// Its GATT table: service → characteristics.
    var gatt: [BLEUUID: [BLEUUID]] { get }
    /// A phone linked; `context` sends notifications while the link lasts.
    func didConnect(_ context: PeripheralContext)
    /// The link went down.
    func didDisconnect()
    /// The phone wrote a characteristic's notification descriptor.
    func subscriptionChanged(_ characteristic: BLEUUID, enabled: Bool) -> SubscriptionAnswer
    /// The phone wrote a value (faults already applied).
    func didReceiveWrite(_ value: [UInt8], characteristic: BLEUUID, withResponse: Bool)
}

/// How a peer answers a descriptor write.
public enum SubscriptionAnswer: Sendable, Hashable {
    /// Confirm it.
    case confirm
    /// Answer with an ATT error.
    case refuse
    /// Never answer (a stuck firmware).
    case ignore
}

extension SimulatedPeripheral {
    public func subscriptionChanged(_ characteristic: BLEUUID, enabled: Bool) -> SubscriptionAnswer { .confirm }
}

/// A simulated peer's handle on its link: send notifications, read the MTU, set timers.
/// Becomes inert when the link goes down.
public final class PeripheralContext {
    /// The simulation's scheduler.
    public let scheduler: VirtualTimeScheduler
    /// The longest notification value (ATT MTU − 3).
    public let maxNotificationLength: Int
    private let send: ([UInt8], BLEUUID) -> Bool
    private let alive: () -> Bool

    init(scheduler: VirtualTimeScheduler, maxNotificationLength: Int, alive: @escaping () -> Bool,
         send: @escaping ([UInt8], BLEUUID) -> Bool) {
        self.scheduler = scheduler
        self.maxNotificationLength = maxNotificationLength
        self.alive = alive
        self.send = send
    }

    /// Whether the link is still up.
    public var isConnected: Bool { alive() }

    /// Queues a notification; false if the link is down, the phone has not subscribed, or the
    /// value is longer than a notification carries.
    @discardableResult
    public func notify(_ value: [UInt8], characteristic: BLEUUID) -> Bool { send(value, characteristic) }
}
