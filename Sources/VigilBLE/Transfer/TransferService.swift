/// The GATT service of the reliable-transfer protocol: one characteristic the phone writes
/// (Write Request for START and stop-and-wait chunks, Write Command for window-mode chunks
/// and QUERY/ABORT) and the peer notifies on (START-ACK, ACK, DONE, ABORT).
public enum TransferService {
    /// Service UUID.
    public static let service: BLEUUID = "5A1B0000-2F5C-4E8B-9C1D-0000B1E7F0A1"
    /// The transfer characteristic (write, write without response, notify).
    public static let characteristic: BLEUUID = "5A1B0001-2F5C-4E8B-9C1D-0000B1E7F0A1"
    /// The profile a connection needs to run transfers.
    public static let profile = GATTProfile(service: service, characteristics: [characteristic], notifying: [characteristic])
}
