/// Where a controller is reached.
public enum HCIEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// H4 over TCP (a virtual controller such as Bumble's `tcp-server:_:PORT`, or an HCI bridge).
    case tcp(host: String, port: UInt16)
    /// H4 over a UNIX stream socket.
    case unix(path: String)
    /// A local adapter through Linux's HCI user channel (`AF_BLUETOOTH`, `HCI_CHANNEL_USER`):
    /// exclusive access to `hciN`, which must be down (`hciconfig hciN down`) and needs
    /// `CAP_NET_ADMIN`.
    case userChannel(index: UInt16)

    /// Parses `tcp:HOST:PORT`, `unix:PATH` or `hci:N`; nil for anything else.
    public init?(_ text: String) {
        if text.hasPrefix("tcp:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else { return nil }
            let host = String(rest[..<colon])
            self = .tcp(host: host.isEmpty ? "127.0.0.1" : host, port: port)
        } else if text.hasPrefix("unix:"), text.count > 5 {
            self = .unix(path: String(text.dropFirst(5)))
        } else if text.hasPrefix("hci:"), let index = UInt16(text.dropFirst(4)) {
            self = .userChannel(index: index)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): return "tcp:\(host):\(port)"
        case .unix(let path): return "unix:\(path)"
        case .userChannel(let index): return "hci:\(index)"
        }
    }
}

/// Why the HCI channel could not be opened or broke.
public enum HCIChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The endpoint text or address is not usable.
    case invalidEndpoint(String)
    /// A system call failed: which one, errno and its text.
    case system(call: String, errno: Int32, message: String)
    /// No such Bluetooth adapter, or the kernel has no Bluetooth support (the user channel only).
    case adapterUnavailable(index: UInt16, errno: Int32, message: String)
    /// The other end closed the stream.
    case closedByPeer
    /// The byte stream stopped being valid H4.
    case corruptStream(HostDecodingError)
    /// The channel was closed by this side.
    case closed

    public var description: String {
        switch self {
        case .invalidEndpoint(let text): return "invalid HCI endpoint: \(text)"
        case .system(let call, let errno, let message): return "\(call) failed: \(message) (errno \(errno))"
        case .adapterUnavailable(let index, let errno, let message):
            return "Bluetooth adapter hci\(index) unavailable: \(message) (errno \(errno))"
        case .closedByPeer: return "controller closed the connection"
        case .corruptStream(let error): return "corrupt H4 stream: \(error)"
        case .closed: return "channel closed"
        }
    }
}

/// A byte pipe to a controller carrying H4 packets.
///
/// Confined to the host's context: ``onReceive`` and ``onClose`` are called there, and
/// ``send(_:)`` is called there with exactly one whole H4 packet per call (the user channel
/// needs one packet per write).
public protocol HCIChannel: AnyObject {
    /// Bytes read from the controller, in order, in chunks of any size.
    var onReceive: (([UInt8]) -> Void)? { get set }
    /// The channel broke or was closed; called once.
    var onClose: ((HCIChannelError) -> Void)? { get set }
    /// Starts delivering bytes.
    func start()
    /// Writes one H4 packet (type indicator included).
    func send(_ packet: [UInt8]) throws(HCIChannelError)
    /// Closes the channel; ``onClose`` is called with ``HCIChannelError/closed``.
    func close()
}
