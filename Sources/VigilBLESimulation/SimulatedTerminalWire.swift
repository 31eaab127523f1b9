import VigilBLE

/// One terminal family's wire format, seen from the terminal: the requests in the bytes the
/// phone writes, and the bytes of the terminal's answers. Everything else a simulated
/// terminal does (advertising, the link, answering late or not at all, noise and corruption)
/// is ``SimulatedTerminalPeripheral``'s and the same for every family.
public protocol SimulatedTerminalWire {
    /// What an answer must echo of its request (the command byte; with TLV the sequence
    /// number too).
    associatedtype ReplyAddress

    /// The family's service.
    static var service: BLEUUID { get }
    /// The characteristic requests are written to.
    static var writeCharacteristic: BLEUUID { get }
    /// The characteristic answers are notified on.
    static var notifyCharacteristic: BLEUUID { get }
    /// Services in the advertisement (none when the family is recognised by name).
    static var advertisedServices: [BLEUUID] { get }
    /// The advertised name of a terminal with `serialNumber`.
    static func advertisedName(serialNumber: String) -> String

    /// A parser with nothing buffered.
    init()
    /// Feeds bytes the phone wrote; returns the well-formed requests they completed, in
    /// order, each with where its answer goes. Bytes that do not parse are skipped and
    /// counted in ``malformedRequestBytes``.
    mutating func requests(in bytes: [UInt8]) -> [(operation: SimulatedTerminalBehavior.Operation, address: ReplyAddress)]
    /// Drops a partly received request (a new link begins).
    mutating func reset()
    /// Request bytes that did not parse, since creation.
    var malformedRequestBytes: Int { get }
    /// The bytes answering the request at `address` with `reply`; nil when they cannot be
    /// encoded.
    func encode(_ reply: SimulatedTerminalBehavior.Reply, to address: ReplyAddress) -> [UInt8]?
}
