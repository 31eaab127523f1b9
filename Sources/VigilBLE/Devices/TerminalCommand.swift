/// The commands every card terminal family understands, whatever its wire format. The raw
/// value is the command's name in `ble.command` spans and in ``DeviceError``s, so a step
/// reads the same for every vendor. Each family maps them to its own command bytes
/// (``FramedTerminalAdapter/code(of:)``, ``TLVTerminalAdapter/code(of:)``).
public enum TerminalCommand: String, Sendable, Hashable, CaseIterable {
    case open, deviceInfo, serialNumber, traceNumber
    case updateWorkKeys, updateICParameters, startCardTransaction, secondAuthorization, cancel

    /// The name in spans and errors.
    public var name: String { rawValue }

    /// The command a family's `table` gives the byte `code`; nil when the family has none.
    /// O(commands).
    public init?(code: UInt8, in table: (TerminalCommand) -> UInt8) {
        guard let command = Self.allCases.first(where: { table($0) == code }) else { return nil }
        self = command
    }
}
