import VigilBLE
import VigilCore

/// A simulated `0xAA55` terminal that requires authenticated commands: every request frame goes
/// through a ``TerminalCommandGuard`` first, and only accepted ones reach its ``behavior``.
///
/// Before the key update it accepts open, device info, serial number, trace number and the key
/// update itself, plain (a key update without a nonce is answered 0xA0); the key update (work
/// keys and a 16-byte phone nonce) loads the keys,
/// recovers the MAC key in clear with its master key, picks its own nonce, derives the session
/// key and answers with check values, its nonce and the confirmation tag. From then on every
/// command must carry a counter and a tag, and every answer is sealed. Refused frames are
/// answered with a status 0xA0…0xA3 and logged, never acted on. Called on the simulation's scheduler.
public final class AuthenticatingTerminalPeripheral: SimulatedPeripheral {
    /// One request frame the terminal received, and what its guard decided.
    public struct LoggedFrame: Sendable, Hashable {
        /// The frame's bytes as received.
        public var bytes: [UInt8]
        /// Its command byte.
        public var command: UInt8
        /// Why it was refused; nil when it was accepted (and acted on).
        public var refusal: CommandAuthenticationError?
        /// Whether it was accepted.
        public var accepted: Bool { refusal == nil }
    }

    public let identifier: PeerIdentifier
    public var advertisedName: String? { FramedTerminalWire.advertisedName(serialNumber: behavior.serialNumber) }
    public var advertisedServices: [BLEUUID] { FramedTerminalWire.advertisedServices }
    public var rssi = -62
    public var gatt: [BLEUUID: [BLEUUID]] {
        [FramedTerminalAdapter.service: [FramedTerminalAdapter.writeCharacteristic, FramedTerminalAdapter.notifyCharacteristic]]
    }

    /// What the terminal does with accepted commands.
    public let behavior: SimulatedTerminalBehavior
    /// The master key its work keys arrive encrypted under (see ``wrapKey(_:masterKey:)``).
    public let masterKey: [UInt8]
    /// The authentication state of the current link.
    public private(set) var commandGuard = TerminalCommandGuard(allowedBeforeKey: Set(
        [TerminalCommand.open, .deviceInfo, .serialNumber, .traceNumber, .updateWorkKeys].map(FramedTerminalAdapter.code(of:))))
    /// Every request frame received, in order, with its verdict.
    public private(set) var log: [LoggedFrame] = []

    private var reassembler = FrameReassembler(format: FramedTerminalAdapter.format)
    private var context: PeripheralContext?
    private var random: SeededGenerator

    /// A terminal named `identifier` with `serialNumber`, whose key-encryption key is
    /// `masterKey`; `seed` drives its nonces.
    public init(identifier: PeerIdentifier = "terminal-aa55-auth", serialNumber: String = "A55100077", masterKey: [UInt8], seed: UInt64 = 3) {
        self.identifier = identifier
        self.behavior = SimulatedTerminalBehavior(serialNumber: serialNumber)
        self.masterKey = masterKey
        self.random = SeededGenerator(seed: seed)
    }

    /// The simulator's stand-in for a terminal's key encryption: `key` XOR the first bytes of
    /// HMAC-SHA256(masterKey, "VigilBLE simulated key wrap") (its own inverse; keys of at most
    /// 32 bytes). Real terminals decrypt work keys with TDES or AES under their master key; the
    /// app never sees the result either way, and neither does the link.
    public static func wrapKey(_ key: [UInt8], masterKey: [UInt8]) -> [UInt8] {
        let pad = HMACSHA256.authenticationCode(for: Array("VigilBLE simulated key wrap".utf8), key: masterKey)
        return zip(key, pad).map { $0 ^ $1 }
    }

    public func didConnect(_ context: PeripheralContext) {
        self.context = context
        reassembler.reset()
        commandGuard.reset()
    }

    public func didDisconnect() {
        context = nil
        commandGuard.reset()
        behavior.linkDropped()
    }

    public func didReceiveWrite(_ value: [UInt8], characteristic: BLEUUID, withResponse: Bool) {
        guard characteristic == FramedTerminalAdapter.writeCharacteristic, context != nil else { return }
        for case .frame(let frame) in reassembler.append(value) {
            let bytes = (try? frame.encoded(in: FramedTerminalAdapter.format)) ?? []
            switch commandGuard.check(frame) {
            case .refused(let command, let counter, let error):
                log.append(LoggedFrame(bytes: bytes, command: command, refusal: error))
                send(commandGuard.answer(refusing: command, counter: counter, error: error))
            case .accepted(let command, let counter, let body):
                log.append(LoggedFrame(bytes: bytes, command: command, refusal: nil))
                handle(command, counter: counter, body: body)
            }
        }
    }

    private func handle(_ command: UInt8, counter: UInt32?, body: [UInt8]) {
        guard let context else { return }
        if command == FramedTerminalAdapter.code(of: .updateWorkKeys) {
            guard body.count == 48 + SessionKey.nonceLength,
                  case .workKeys(let keys)? = FramedTerminalWire.operation(Frame(command: command, payload: Array(body.prefix(48))))
            else {
                // A key update without a phone nonce would leave commands unauthenticated: refused.
                return send(commandGuard.answer(refusing: command, counter: counter ?? 0, error: .noSessionKey))
            }
            let phoneNonce = Array(body.suffix(SessionKey.nonceLength))
            behavior.handle(.workKeys(keys), scheduler: context.scheduler) { [weak self] reply in
                guard let self else { return }
                guard case .checkValues(let values) = reply else {
                    return self.send(self.commandGuard.seal(response: command | 0x80, counter: counter, body: FramedTerminalWire.replyPayload(reply)))
                }
                let terminalNonce = (0..<SessionKey.nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &self.random) }
                let macKey = Self.wrapKey(keys.macKey, masterKey: self.masterKey)
                let confirmation = SessionKey(macKey: macKey, phoneNonce: phoneNonce, terminalNonce: terminalNonce)
                    .confirmation(phoneNonce: phoneNonce, terminalNonce: terminalNonce, checkValues: values)
                // The answer is sealed under the key the request came under (none at the first
                // key update); the new key applies from the next command.
                let answer = self.commandGuard.seal(response: command | 0x80, counter: counter,
                                                    body: FramedTerminalWire.replyPayload(reply) + terminalNonce + confirmation)
                _ = self.commandGuard.establish(macKey: macKey, phoneNonce: phoneNonce, terminalNonce: terminalNonce, checkValues: values)
                self.send(answer)
            }
            return
        }
        guard let operation = FramedTerminalWire.operation(Frame(command: command, payload: body)) else { return }
        behavior.handle(operation, scheduler: context.scheduler) { [weak self] reply in
            guard let self else { return }
            self.send(self.commandGuard.seal(response: command | 0x80, counter: counter, body: FramedTerminalWire.replyPayload(reply)))
        }
    }

    /// Sends an answer as notifications of at most the link's notification length.
    private func send(_ frame: Frame) {
        guard let context, var bytes = try? frame.encoded(in: FramedTerminalAdapter.format) else { return }
        if behavior.corruptReplies { bytes[bytes.count - 1] ^= 0xFF }
        bytes = behavior.noiseBeforeReplies + bytes
        let limit = max(1, context.maxNotificationLength)
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + limit, bytes.count)
            context.notify(Array(bytes[offset..<end]), characteristic: FramedTerminalAdapter.notifyCharacteristic)
            offset = end
        }
    }
}
