import VigilBLE

/// A hostile relay on the simulated link between the phone and a `0xAA55` terminal: it reads
/// the frames the phone writes and, once, attacks the first frame of the `target` command —
/// the attacks that integrity checks alone cannot stop, because it fixes every checksum it breaks.
///
/// - ``Attack/flip``: flips one bit of a payload byte (offset `flipOffset`, by default the low
///   byte of a card transaction's amount behind the 4-byte counter) and recomputes the CRC-16;
/// - ``Attack/replay``: relays the frame, then sends a copy again after the next frame;
/// - ``Attack/reorder``: holds the frame back and relays it after the next one;
/// - ``Attack/flipAnswer``: flips one bit of the terminal's answer to the target command (same
///   offset rule) and recomputes the CRC-16, toward the phone.
///
/// Everything else is relayed unchanged, one whole frame per value (noise between frames is
/// dropped); answers pass untouched unless the attack is on them. The forged frames are the
/// flipped one, the replayed copy and the held-back one; ``relayed`` lists every frame in the
/// order the terminal gets them, ``forgedAnswers`` counts answers changed. Set it on
/// ``SimulatedTransport/manInTheMiddle``. Called on the simulation's scheduler.
public final class ManInTheMiddle {
    /// What the relay does to its target.
    public enum Attack: String, Sendable, Hashable, CaseIterable {
        case flip, replay, reorder
        case flipAnswer = "flip-answer"
    }

    /// One frame relayed to the terminal.
    public struct RelayedFrame: Sendable, Hashable {
        /// Its bytes.
        public var bytes: [UInt8]
        /// Whether the relay forged it (changed, copied or delayed past a later frame).
        public var forged: Bool
    }

    /// The attack.
    public let attack: Attack
    /// The command byte attacked.
    public let target: UInt8
    /// The payload byte ``Attack/flip`` changes (clamped to the payload).
    public let flipOffset: Int
    /// The characteristic whose writes pass through the relay.
    public let characteristic: BLEUUID
    /// The characteristic whose notifications pass through the relay.
    public let answerCharacteristic: BLEUUID = FramedTerminalAdapter.notifyCharacteristic
    /// Answers the relay changed.
    public private(set) var forgedAnswers = 0
    /// Frames relayed, in delivery order.
    public private(set) var relayed: [RelayedFrame] = []
    /// Frames forged so far.
    public var forgedCount: Int { relayed.filter(\.forged).count }

    private var reassembler = FrameReassembler(format: FramedTerminalAdapter.format)
    private var answerReassembler = FrameReassembler(format: FramedTerminalAdapter.format)
    private var attacked = false
    private var pending: [UInt8]?

    /// A relay mounting `attack` on the first `target` frame (default: start card transaction).
    public init(attack: Attack, target: UInt8 = FramedTerminalAdapter.code(of: .startCardTransaction), flipOffset: Int = 11,
                characteristic: BLEUUID = FramedTerminalAdapter.writeCharacteristic) {
        self.attack = attack
        self.target = target
        self.flipOffset = flipOffset
        self.characteristic = characteristic
    }

    /// Takes one value the phone wrote; returns the values the terminal gets now, in order.
    func relay(_ value: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for case .frame(let frame) in reassembler.append(value) {
            guard let bytes = try? frame.encoded(in: FramedTerminalAdapter.format) else { continue }
            if attack != .flipAnswer, !attacked, frame.command == target, !frame.payload.isEmpty {
                attacked = true
                switch attack {
                case .flip:
                    var payload = frame.payload
                    payload[min(flipOffset, payload.count - 1)] ^= 0x01
                    if let forged = try? Frame(command: frame.command, payload: payload).encoded(in: FramedTerminalAdapter.format) {
                        emit(forged, forged: true, into: &out)
                    }
                case .replay:
                    emit(bytes, forged: false, into: &out)
                    pending = bytes
                case .reorder:
                    pending = bytes
                case .flipAnswer:
                    break
                }
                continue
            }
            emit(bytes, forged: false, into: &out)
            if let held = pending {
                pending = nil
                emit(held, forged: true, into: &out)
            }
        }
        return out
    }

    /// Takes one value the terminal notified; returns the values the phone gets now, in order
    /// (the value itself unless the attack is on answers).
    func relayAnswer(_ value: [UInt8]) -> [[UInt8]] {
        guard attack == .flipAnswer else { return [value] }
        var out: [[UInt8]] = []
        for case .frame(let frame) in answerReassembler.append(value) {
            guard var bytes = try? frame.encoded(in: FramedTerminalAdapter.format) else { continue }
            if !attacked, frame.command == target | 0x80, !frame.payload.isEmpty {
                attacked = true
                var payload = frame.payload
                payload[min(flipOffset, payload.count - 1)] ^= 0x01
                if let forged = try? Frame(command: frame.command, payload: payload).encoded(in: FramedTerminalAdapter.format) {
                    bytes = forged
                    forgedAnswers += 1
                }
            }
            out.append(bytes)
        }
        return out
    }

    /// Forgets partial input (a new link).
    func reset() {
        reassembler.reset()
        answerReassembler.reset()
    }

    private func emit(_ bytes: [UInt8], forged: Bool, into out: inout [[UInt8]]) {
        relayed.append(RelayedFrame(bytes: bytes, forged: forged))
        out.append(bytes)
    }
}
