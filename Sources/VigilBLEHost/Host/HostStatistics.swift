/// Counters the host keeps, for diagnostics and tests.
public struct HostStatistics: Sendable, Hashable {
    /// HCI commands sent.
    public var commandsSent = 0
    /// HCI commands the controller refused (status ≠ 0), including optional ones.
    public var commandsFailed = 0
    /// ACL packets handed to the controller.
    public var aclPacketsSent = 0
    /// ACL packets received.
    public var aclPacketsReceived = 0
    /// Credits returned by Number Of Completed Packets.
    public var aclCreditsReturned = 0
    /// Packets (events, ACL, L2CAP PDUs) that failed to decode and were dropped.
    public var malformedPackets = 0
    /// Connection parameter update requests from peers that were accepted.
    public var parameterUpdatesAccepted = 0
    /// The highest number of ACL packets the controller held at once.
    public var maximumACLInFlight = 0
}
