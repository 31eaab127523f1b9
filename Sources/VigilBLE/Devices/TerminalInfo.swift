/// A card terminal's model and firmware, as it reports them.
public struct TerminalInfo: Sendable, Hashable {
    /// Model name.
    public var model: String
    /// Firmware version.
    public var firmware: String

    /// Info.
    public init(model: String, firmware: String) {
        self.model = model
        self.firmware = firmware
    }
}
