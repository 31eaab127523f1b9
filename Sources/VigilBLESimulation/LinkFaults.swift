import VigilBLE

/// Faults the simulated link injects, all drawn from the transport's seeded generator.
///
/// Value faults apply to application values — Write Commands, the values of Write Requests,
/// notifications — in the chosen directions; ATT protocol answers (write responses,
/// discovery, descriptor writes) are never touched, as the link layer's own CRC and
/// retransmission protect them on a real radio. A lost Write Request value is still answered
/// by the peer's ATT layer: the loss happens above it (a full firmware queue).
public struct LinkFaults: Sendable, Hashable {
    /// Which directions value faults apply to.
    public struct Directions: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Phone → peer (writes).
        public static let toPeripheral = Directions(rawValue: 1)
        /// Peer → phone (notifications).
        public static let toCentral = Directions(rawValue: 2)
        /// Both.
        public static let both: Directions = [.toPeripheral, .toCentral]
    }

    /// Probability a value is dropped.
    public var loss: Double
    /// Probability a value is delivered twice.
    public var duplication: Double
    /// Probability a value is held back one to two connection intervals, so that later values
    /// overtake it.
    public var reordering: Double
    /// Probability one to three bits of a value are flipped.
    public var corruption: Double
    /// Probability a value is delayed by up to ``maxDelayMs``.
    public var delay: Double
    /// The longest injected delay (ms).
    public var maxDelayMs: Double
    /// Probability a connection request fails.
    public var connectFailure: Double
    /// Links dropped at chosen moments: the n-th fault applies to the n-th link that comes up.
    public var disconnects: [DisconnectFault]
    /// Where value faults apply.
    public var directions: Directions

    /// Faults; all off by default.
    public init(loss: Double = 0, duplication: Double = 0, reordering: Double = 0, corruption: Double = 0, delay: Double = 0,
                maxDelayMs: Double = 50, connectFailure: Double = 0, disconnects: [DisconnectFault] = [],
                directions: Directions = .both) {
        self.loss = loss
        self.duplication = duplication
        self.reordering = reordering
        self.corruption = corruption
        self.delay = delay
        self.maxDelayMs = maxDelayMs
        self.connectFailure = connectFailure
        self.disconnects = disconnects
        self.directions = directions
    }

    /// No faults.
    public static let none = LinkFaults()
}

/// One link drop at a chosen moment.
public struct DisconnectFault: Sendable, Hashable {
    /// When the link drops.
    public enum Moment: Sendable, Hashable {
        /// This long after the link came up (ms).
        case afterMs(Double)
        /// When the peer has received this many values from the phone on the link.
        case afterValuesToPeripheral(Int)
    }

    /// When.
    public var moment: Moment
    /// How the phone learns of it: `supervisionTimeout` after the supervision timeout,
    /// anything else one connection interval later.
    public var reason: DisconnectReason
    /// How long the peer stays silent (not advertising) afterwards (ms).
    public var outageMs: Double

    /// A disconnect.
    public init(_ moment: Moment, reason: DisconnectReason = .remoteTerminated, outageMs: Double = 0) {
        self.moment = moment
        self.reason = reason
        self.outageMs = outageMs
    }
}
