/// The authenticated form of a `0xAA55` frame's payload: `counter u32 BE | body | tag (16)`,
/// where `tag` is the first 16 bytes of HMAC-SHA256 under the session key over the frame from its
/// command byte to the end of the body — `command | length u16 BE | counter | body` — so the
/// command, the length, the counter and every body byte are covered (docs/ble-protocol.md §4).
///
/// Decoding never traps: a payload shorter than 20 bytes throws
/// ``CommandAuthenticationError/truncated(length:)``; the tag is checked separately with
/// ``isAuthentic(under:)`` (constant time), because the counter must be read before the tag is
/// known to be good in order to answer the right exchange.
public struct AuthenticatedFrame: Sendable, Hashable {
    /// Counter length, in bytes.
    public static let counterLength = 4
    /// Tag length, in bytes.
    public static let tagLength = 16
    /// Payload bytes a frame carries beyond its body.
    public static let overhead = counterLength + tagLength

    /// The command byte (a response's has the high bit set).
    public var command: UInt8
    /// The sender's counter (a response carries its request's).
    public var counter: UInt32
    /// The command's own payload.
    public var body: [UInt8]
    /// The tag as received.
    public var tag: [UInt8]

    /// The parts of `frame`'s payload, unverified.
    public init(decoding frame: Frame) throws(CommandAuthenticationError) {
        let payload = frame.payload
        guard payload.count >= Self.overhead else { throw .truncated(length: payload.count) }
        command = frame.command
        counter = payload[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        body = Array(payload[4..<(payload.count - Self.tagLength)])
        tag = Array(payload[(payload.count - Self.tagLength)...])
    }

    /// A sealed frame: `body` with `counter` and the tag under `key`.
    public init(command: UInt8, counter: UInt32, body: [UInt8], key: SessionKey) {
        self.command = command
        self.counter = counter
        self.body = body
        self.tag = Self.tag(command: command, counter: counter, body: body, key: key)
    }

    /// The frame to send.
    public var frame: Frame {
        var payload: [UInt8] = []
        payload.reserveCapacity(Self.overhead + body.count)
        payload.appendBigEndian(counter)
        payload += body
        payload += tag
        return Frame(command: command, payload: payload)
    }

    /// Whether the tag is the one `key` gives (constant-time comparison).
    public func isAuthentic(under key: SessionKey) -> Bool {
        HMACSHA256.constantTimeEqual(tag, Self.tag(command: command, counter: counter, body: body, key: key))
    }

    /// The tag: HMAC-SHA256(K, command | length u16 BE | counter u32 BE | body), first 16 bytes,
    /// where length is the frame's payload length (`4 + body + 16`).
    public static func tag(command: UInt8, counter: UInt32, body: [UInt8], key: SessionKey) -> [UInt8] {
        var message: [UInt8] = [command]
        message.reserveCapacity(7 + body.count)
        message.appendBigEndian(UInt16(truncatingIfNeeded: overhead + body.count))
        message.appendBigEndian(counter)
        message += body
        return Array(HMACSHA256.authenticationCode(for: message, key: key.bytes).prefix(tagLength))
    }
}
