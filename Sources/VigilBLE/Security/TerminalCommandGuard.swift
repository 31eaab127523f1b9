/// The terminal's side of command authentication, as a pure state machine: the reference a
/// firmware team implements (docs/ble-protocol.md §4), and what the simulated terminal runs.
///
/// Before the key update, only the commands in `allowedBeforeKey` are accepted, plain; any other
/// is refused with ``CommandAuthenticationError/noSessionKey``. Once ``establish(macKey:phoneNonce:terminalNonce:checkValues:)``
/// made a session key, every frame must be authenticated: a payload too short for counter and
/// tag, a tag that does not verify (constant-time), or a counter not strictly above the last
/// accepted one is refused. A refused frame changes nothing — not the counter, not the key — and
/// is never handed on; ``answer(refusing:counter:error:)`` builds the status answer. A new
/// link starts without a key (``reset()``). Not thread-safe (a value).
public struct TerminalCommandGuard: Sendable {
    /// What ``check(_:)`` decided.
    public enum Verdict: Sendable, Hashable {
        /// Act on `body`; answer with ``seal(response:counter:body:)`` (`counter` nil before the key).
        case accepted(command: UInt8, counter: UInt32?, body: [UInt8])
        /// Do not act; answer with ``answer(refusing:counter:error:)``.
        case refused(command: UInt8, counter: UInt32, CommandAuthenticationError)
    }

    /// Commands accepted plain before the session key exists (opening, identification, the
    /// key update itself).
    public let allowedBeforeKey: Set<UInt8>
    /// The session key, once the key update made one.
    public private(set) var key: SessionKey?
    /// The highest counter accepted in this session (0 before the first).
    public private(set) var lastAcceptedCounter: UInt32 = 0
    /// Frames refused since creation, by reason's status byte.
    public private(set) var refusals: [UInt8: Int] = [:]

    /// A guard with no key, accepting `allowedBeforeKey` plain.
    public init(allowedBeforeKey: Set<UInt8>) { self.allowedBeforeKey = allowedBeforeKey }

    /// Decides on one request frame. Cost: one HMAC over the frame once a key exists.
    public mutating func check(_ frame: Frame) -> Verdict {
        guard let key else {
            if allowedBeforeKey.contains(frame.command) { return .accepted(command: frame.command, counter: nil, body: frame.payload) }
            return refuse(frame.command, 0, .noSessionKey)
        }
        let sealed: AuthenticatedFrame
        do {
            sealed = try AuthenticatedFrame(decoding: frame)
        } catch {
            return refuse(frame.command, 0, error)
        }
        // The tag first: until it verifies the counter is only a claim, and a forged frame must be
        // refused for its tag (not its counter) whatever counter it claims. The refusal echoes the
        // claimed counter so that the phone can fail the exchange it names.
        guard sealed.isAuthentic(under: key) else { return refuse(frame.command, sealed.counter, .badTag) }
        guard sealed.counter > lastAcceptedCounter else {
            return refuse(frame.command, sealed.counter, .staleCounter(received: sealed.counter, lastAccepted: lastAcceptedCounter))
        }
        lastAcceptedCounter = sealed.counter
        return .accepted(command: frame.command, counter: sealed.counter, body: sealed.body)
    }

    /// Starts a session after a key update: derives the key, resets the counter, and returns the
    /// confirmation tag the answer carries.
    public mutating func establish(macKey: [UInt8], phoneNonce: [UInt8], terminalNonce: [UInt8], checkValues: KeyCheckValues) -> [UInt8] {
        let key = SessionKey(macKey: macKey, phoneNonce: phoneNonce, terminalNonce: terminalNonce)
        self.key = key
        lastAcceptedCounter = 0
        return key.confirmation(phoneNonce: phoneNonce, terminalNonce: terminalNonce, checkValues: checkValues)
    }

    /// The answer frame to an accepted request: sealed with the request's counter once a key
    /// exists, plain before.
    public func seal(response command: UInt8, counter: UInt32?, body: [UInt8]) -> Frame {
        guard let key, let counter else { return Frame(command: command, payload: body) }
        return AuthenticatedFrame(command: command, counter: counter, body: body, key: key).frame
    }

    /// The answer to a refused request: `command | 0x80` with the status byte of `error` as its
    /// body, sealed (with the refused frame's counter) once a key exists.
    public func answer(refusing command: UInt8, counter: UInt32, error: CommandAuthenticationError) -> Frame {
        seal(response: command | 0x80, counter: key == nil ? nil : counter, body: [error.status])
    }

    /// Forgets the session (the link went down).
    public mutating func reset() {
        key = nil
        lastAcceptedCounter = 0
    }

    private mutating func refuse(_ command: UInt8, _ counter: UInt32, _ error: CommandAuthenticationError) -> Verdict {
        refusals[error.status, default: 0] += 1
        return .refused(command: command, counter: counter, error)
    }
}
