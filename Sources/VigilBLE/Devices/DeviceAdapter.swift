/// One card terminal family behind a common interface: the app and ``PaymentTerminal`` talk
/// to this, never to a vendor's wire format.
///
/// Every operation is one command exchange, recorded as a `ble.command` span under `trace`;
/// completions run on the link's scheduler. Implementations: ``FramedTerminalAdapter``
/// (`0xAA55` frames) and ``TLVTerminalAdapter`` (TLV packets with CRC-16).
public protocol DeviceAdapter: AnyObject {
    /// The vendor family's name.
    var vendor: String { get }
    /// Responses that failed to parse since creation (noise is counted, never fatal).
    var malformedMessages: Int { get }
    /// Opens a session with the terminal.
    func open(trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void)
    /// Model and firmware.
    func deviceInfo(trace: SpanContext?, completion: @escaping (Result<TerminalInfo, DeviceError>) -> Void)
    /// The terminal's serial number.
    func serialNumber(trace: SpanContext?, completion: @escaping (Result<String, DeviceError>) -> Void)
    /// The next transaction trace number (the terminal's counter).
    func transactionTraceNumber(trace: SpanContext?, completion: @escaping (Result<UInt32, DeviceError>) -> Void)
    /// Loads work keys; returns the terminal's check values.
    func updateWorkKeys(_ keys: WorkKeys, trace: SpanContext?, completion: @escaping (Result<KeyCheckValues, DeviceError>) -> Void)
    /// Loads EMV IC parameters (AIDs, CA public keys) as the server sent them.
    func updateICParameters(_ parameters: [UInt8], trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void)
    /// Waits for a card and reads it.
    func startCardTransaction(_ request: CardTransactionRequest, trace: SpanContext?,
                              completion: @escaping (Result<CardTransactionResult, DeviceError>) -> Void)
    /// Hands the issuer's response to the card.
    func secondAuthorization(_ issuerResponse: [UInt8], trace: SpanContext?,
                             completion: @escaping (Result<SecondAuthorizationResult, DeviceError>) -> Void)
    /// Cancels a waiting card transaction (which then fails with ``DeviceError/cancelled(command:)``).
    func cancel(trace: SpanContext?, completion: @escaping (Result<Void, DeviceError>) -> Void)
}
