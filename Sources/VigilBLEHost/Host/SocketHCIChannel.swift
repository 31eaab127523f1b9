// Linux only: the HCI user channel is a Linux socket family, and the socket calls below use
// Glibc's spellings. On other platforms the host still builds, without a socket channel.
#if canImport(Glibc)
import Glibc
import Dispatch

/// An ``HCIChannel`` on a socket: TCP or UNIX stream (H4 byte stream to a virtual controller or
/// a bridge), or Linux's HCI user channel (one H4 packet per read and per write).
///
/// Reads arrive through a `DispatchSource` on `queue`, which must be the host's serial queue
/// (the `DispatchLinkScheduler`'s): the `@unchecked Sendable` conformance rests on every member
/// being used only there. Writes block until the kernel took the whole packet (loopback and
/// HCI sockets take them at once).
public final class SocketHCIChannel: HCIChannel, @unchecked Sendable {
    public var onReceive: (([UInt8]) -> Void)?
    public var onClose: ((HCIChannelError) -> Void)?

    /// The endpoint.
    public let endpoint: HCIEndpoint
    private let queue: DispatchQueue
    private var fd: Int32
    private var source: DispatchSourceRead?
    private var closed = false

    /// Linux's constants for the HCI user channel (<bluetooth/bluetooth.h>, <bluetooth/hci.h>);
    /// spelled out because the C library headers do not carry them.
    private enum Bluetooth {
        static let addressFamily: Int32 = 31 // AF_BLUETOOTH
        static let protocolHCI: Int32 = 1 // BTPROTO_HCI
        static let userChannel: UInt16 = 1 // HCI_CHANNEL_USER
    }

    /// `struct sockaddr_hci { sa_family_t hci_family; unsigned short hci_dev, hci_channel; }`.
    private struct HCISocketAddress {
        var family: UInt16
        var device: UInt16
        var channel: UInt16
    }

    /// Opens and connects (or binds) the socket; throws a typed error naming the failed call.
    public init(endpoint: HCIEndpoint, queue: DispatchQueue) throws(HCIChannelError) {
        self.endpoint = endpoint
        self.queue = queue
        switch endpoint {
        case .tcp(let host, let port): fd = try Self.openTCP(host: host, port: port)
        case .unix(let path): fd = try Self.openUNIX(path: path)
        case .userChannel(let index): fd = try Self.openUserChannel(index: index)
        }
    }

    deinit {
        source?.cancel()
        if source == nil, fd >= 0 { _ = systemClose(fd) }
    }

    public func start() {
        guard source == nil, !closed else { return }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let descriptor = fd
        source.setEventHandler { [weak self] in self?.readAvailable() }
        source.setCancelHandler { _ = systemClose(descriptor) }
        self.source = source
        source.resume()
    }

    public func send(_ packet: [UInt8]) throws(HCIChannelError) {
        guard !closed else { throw .closed }
        var offset = 0
        while offset < packet.count {
            let written = packet.withUnsafeBytes { raw in
                write(fd, raw.baseAddress!.advanced(by: offset), raw.count - offset)
            }
            if written > 0 {
                offset += written
                continue
            }
            let code = errno
            if written < 0, code == EINTR { continue }
            if written < 0, code == EAGAIN || code == EWOULDBLOCK {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, 1000)
                continue
            }
            let error = HCIChannelError.system(call: "write", errno: code, message: Self.message(code))
            fail(error)
            throw error
        }
    }

    public func close() { fail(.closed) }

    private func readAvailable() {
        guard !closed else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if count > 0 {
            onReceive?(Array(buffer[0..<count]))
        } else if count == 0 {
            fail(.closedByPeer)
        } else {
            let code = errno
            guard code != EAGAIN, code != EWOULDBLOCK, code != EINTR else { return }
            fail(.system(call: "read", errno: code, message: Self.message(code)))
        }
    }

    private func fail(_ error: HCIChannelError) {
        guard !closed else { return }
        closed = true
        if let source {
            source.cancel()
        } else {
            _ = systemClose(fd)
        }
        fd = -1
        let handler = onClose
        onClose = nil
        handler?(error)
    }

    // MARK: Opening

    private static func openTCP(host: String, port: UInt16) throws(HCIChannelError) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        let name = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, name, &address.sin_addr) == 1 else { throw .invalidEndpoint("not an IPv4 address: \(host)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw systemError("socket") }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let error = systemError("connect to \(name):\(port)")
            _ = systemClose(fd)
            throw error
        }
        return fd
    }

    private static func openUNIX(path: String) throws(HCIChannelError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { throw .invalidEndpoint("UNIX socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw systemError("socket") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let error = systemError("connect to \(path)")
            _ = systemClose(fd)
            throw error
        }
        return fd
    }

    private static func openUserChannel(index: UInt16) throws(HCIChannelError) -> Int32 {
        let fd = socket(Bluetooth.addressFamily, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Bluetooth.protocolHCI)
        guard fd >= 0 else {
            let code = errno
            throw .adapterUnavailable(index: index, errno: code, message: "no Bluetooth socket support: " + message(code))
        }
        var address = HCISocketAddress(family: UInt16(Bluetooth.addressFamily), device: index, channel: Bluetooth.userChannel)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<HCISocketAddress>.size)) }
        }
        guard result == 0 else {
            let code = errno
            _ = systemClose(fd)
            throw .adapterUnavailable(index: index, errno: code, message: message(code))
        }
        return fd
    }

    private static func systemError(_ call: String) -> HCIChannelError {
        let code = errno
        return .system(call: call, errno: code, message: message(code))
    }

    static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// `close(2)`, named apart from the channel's own `close()`.
private func systemClose(_ fd: Int32) -> Int32 {
    Glibc.close(fd)
}
#endif
