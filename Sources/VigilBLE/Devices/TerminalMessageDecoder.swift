/// A vendor's streaming parser of terminal responses: notification bytes in, complete
/// messages out, noise counted and skipped. Bounded memory; never traps.
public protocol TerminalMessageDecoder: AnyObject {
    /// A parsed response.
    associatedtype Message
    /// Feeds notification bytes; returns the messages they completed.
    func feed(_ bytes: [UInt8]) -> [Message]
    /// Drops partial input (the link went down).
    func reset()
    /// Bytes or messages discarded as malformed since creation.
    var malformedCount: Int { get }
}
