import VigilBLE
#if canImport(Glibc)
import Dispatch
#endif

/// ``VigilBLE/BLETransport`` on ``BLEHost``: `BLEConnection`, the framing, the transfer
/// sender and receiver, `PaymentTerminal` and the vendor adapters run on it unchanged.
///
/// Peers are named by address as ``DeviceAddress/description`` spells it
/// (`AA:BB:CC:DD:EE:FF/random`); a bare address is taken as the type last seen advertising,
/// else public. `connected` is reported once the ATT MTU is exchanged; `discover` runs primary
/// service, characteristic and CCCD discovery; Write Requests longer than MTU − 3 go as long
/// writes (Prepare/Execute), up to 512 bytes, as CoreBluetooth allows. Write Commands are
/// refused by ``canSendWriteWithoutResponse(_:)`` while the host's ACL backlog for the link is
/// full, and `readyToSendWriteWithoutResponse` follows when it drains. Confined to the host's
/// scheduler; every event is delivered through it, never synchronously.
public final class HostTransport: BLETransport {
    public var eventHandler: ((TransportEvent) -> Void)?
    /// The host underneath.
    public let host: BLEHost
    private let scheduler: any LinkScheduler
    private var scanServices: [BLEUUID]?
    private var seenKinds: [String: DeviceAddress.Kind] = [:]
    private var seenNames: [String: String] = [:]
    private var cancelling: Set<String> = []

    /// A transport on `host`. Call ``start(completion:)`` (or let ``open(_:scheduler:configuration:completion:)``
    /// do it): `powerChanged(true)` follows once the controller is initialised.
    public init(host: BLEHost, scheduler: any LinkScheduler) {
        self.host = host
        self.scheduler = scheduler
        host.onAdvertisement = { [weak self] report in self?.advertisement(report) }
        host.onConnected = { [weak self] link in self?.emit(.connected(PeerIdentifier(link.peer.description))) }
        host.onConnectFailed = { [weak self] peer, error in self?.connectFailed(peer, error) }
        host.onDisconnected = { [weak self] link, reason in self?.disconnected(link, reason: reason) }
        host.onFailure = { [weak self] _ in self?.emit(.powerChanged(false)) }
        host.onWriteBufferAvailable = { [weak self] link in self?.emit(.readyToSendWriteWithoutResponse(PeerIdentifier(link.peer.description))) }
        host.onValue = { [weak self] link, handle, value in
            guard let self, let uuid = link.characteristicByValueHandle[handle] else { return }
            self.emit(.valueReceived(PeerIdentifier(link.peer.description), uuid, value))
        }
    }

    /// Initialises the controller; reports `powerChanged(true)` on success.
    public func start(completion: @escaping (Result<Void, HostError>) -> Void = { _ in }) {
        host.start { [weak self] result in
            if case .success = result { self?.emit(.powerChanged(true)) }
            completion(result)
        }
    }

    #if canImport(Glibc)
    /// Opens `endpoint` with a socket channel on `scheduler`'s queue, and starts the host.
    /// Throws the typed channel error when the endpoint cannot be opened (for the user channel:
    /// ``HCIChannelError/adapterUnavailable(index:errno:message:)`` when there is no adapter).
    public static func open(_ endpoint: HCIEndpoint, scheduler: DispatchLinkScheduler,
                            configuration: HostConfiguration = HostConfiguration(),
                            completion: @escaping (Result<Void, HostError>) -> Void = { _ in }) throws(HCIChannelError) -> HostTransport {
        let channel = try SocketHCIChannel(endpoint: endpoint, queue: scheduler.queue)
        let host = BLEHost(channel: channel, scheduler: scheduler, configuration: configuration)
        let transport = HostTransport(host: host, scheduler: scheduler)
        scheduler.execute(label: "host transport: start") { transport.start(completion: completion) }
        return transport
    }
    #endif

    public var isPoweredOn: Bool { host.isReady }

    public func startScan(services: [BLEUUID]) {
        scanServices = services.map(UUIDCoding.normalized)
        host.startScan { _ in }
    }

    public func stopScan() {
        guard scanServices != nil else { return }
        scanServices = nil
        host.stopScan()
    }

    public func connect(_ peer: PeerIdentifier) {
        guard let address = address(peer) else {
            return emit(.connectFailed(peer, TransportFailure("not a device address: \(peer.rawValue)")))
        }
        if let link = host.link(to: address) {
            // Already linked: answer as the contract asks (once set up; else setup will answer).
            if link.isEstablished { emit(.connected(PeerIdentifier(link.peer.description))) }
            return
        }
        host.connect(to: address)
    }

    public func cancelConnection(_ peer: PeerIdentifier) {
        guard let address = address(peer) else { return emit(.disconnected(peer, .localHostTerminated)) }
        if let link = host.link(to: address) {
            host.disconnect(link, reason: HCIStatus.remoteUserTerminated)
            // Answered when Disconnection Complete arrives (reason: local host terminated).
            cancelling.insert(link.peer.text)
        } else if let pending = host.connectingTo, pending.wireBytes == address.wireBytes {
            cancelling.insert(address.text)
            host.cancelConnect()
        } else {
            emit(.disconnected(peer, .localHostTerminated))
        }
    }

    public func discover(service: BLEUUID, characteristics: [BLEUUID], on peer: PeerIdentifier) {
        guard let link = link(peer) else { return emit(.servicesDiscovered(peer, .failure(TransportFailure("not connected")))) }
        let wanted = UUIDCoding.normalized(service)
        link.gatt.discoverPrimaryServices { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error): self.emit(.servicesDiscovered(peer, .failure(Self.failure(error))))
            case .success(let services):
                guard let found = services.first(where: { $0.uuid == wanted }) else {
                    return self.emit(.servicesDiscovered(peer, .success([])))
                }
                link.gatt.discoverCharacteristics(of: found) { result in
                    switch result {
                    case .failure(let error): self.emit(.servicesDiscovered(peer, .failure(Self.failure(error))))
                    case .success(let list):
                        for characteristic in list {
                            // The original spelling of a wanted UUID is what the caller will use.
                            let key = characteristics.first { UUIDCoding.normalized($0) == characteristic.uuid } ?? characteristic.uuid
                            link.characteristics[key] = characteristic
                            link.characteristicByValueHandle[characteristic.valueHandle] = key
                        }
                        let present = Set(characteristics.filter { link.characteristics[$0] != nil })
                        self.emit(.servicesDiscovered(peer, .success(present)))
                    }
                }
            }
        }
    }

    public func setNotifications(_ enabled: Bool, characteristic: BLEUUID, on peer: PeerIdentifier) {
        guard let link = link(peer), let found = link.characteristics[characteristic] else {
            return emit(.notificationStateChanged(peer, characteristic, .failure(TransportFailure("characteristic not discovered"))))
        }
        let canNotify = found.properties.contains(.notify)
        guard canNotify || found.properties.contains(.indicate) else {
            return emit(.notificationStateChanged(peer, characteristic, .failure(TransportFailure("characteristic neither notifies nor indicates"))))
        }
        let configure: (UInt16) -> Void = { [weak self] descriptor in
            link.gatt.configure(descriptor: descriptor, notify: enabled && canNotify, indicate: enabled && !canNotify) { result in
                self?.emit(.notificationStateChanged(peer, characteristic, result.map { enabled }.mapError(Self.failure)))
            }
        }
        if let descriptor = found.configurationHandle { return configure(descriptor) }
        link.gatt.discoverConfigurationDescriptor(of: found) { [weak self] result in
            switch result {
            case .success(let descriptor?):
                link.characteristics[characteristic]?.configurationHandle = descriptor
                configure(descriptor)
            case .success(nil):
                self?.emit(.notificationStateChanged(peer, characteristic, .failure(TransportFailure("no Client Characteristic Configuration descriptor"))))
            case .failure(let error):
                self?.emit(.notificationStateChanged(peer, characteristic, .failure(Self.failure(error))))
            }
        }
    }

    public func write(_ bytes: [UInt8], characteristic: BLEUUID, type: WriteType, on peer: PeerIdentifier) {
        guard let link = link(peer), let found = link.characteristics[characteristic] else {
            if type == .withResponse {
                emit(.wrote(peer, characteristic, .failure(TransportFailure("characteristic not discovered"))))
            }
            return
        }
        switch type {
        case .withoutResponse:
            // The caller checked canSendWriteWithoutResponse (the BLETransport contract).
            link.att.writeCommand(handle: found.valueHandle, value: bytes)
        case .withResponse:
            link.gatt.write(handle: found.valueHandle, value: bytes) { [weak self] result in
                self?.emit(.wrote(peer, characteristic, result.mapError(Self.failure)))
            }
        }
    }

    public func canSendWriteWithoutResponse(_ peer: PeerIdentifier) -> Bool {
        guard let link = link(peer), link.isEstablished else { return false }
        return host.canQueueWriteCommand(on: link)
    }

    public func maximumWriteLength(_ type: WriteType, for peer: PeerIdentifier) -> Int {
        guard let link = link(peer) else { return 20 }
        return type == .withoutResponse ? link.att.mtu - 3 : 512
    }

    public func readRSSI(_ peer: PeerIdentifier) {
        guard let link = link(peer) else { return }
        host.readRSSI(link) { [weak self] result in
            if case .success(let rssi) = result { self?.emit(.rssiRead(peer, rssi)) }
        }
    }

    /// The live link to `peer`, for the lower-level API (connection updates, link facts).
    public func link(_ peer: PeerIdentifier) -> HostLink? {
        guard let address = address(peer) else { return nil }
        return host.link(to: address)
    }

    // MARK: Host events

    private func advertisement(_ report: LEAdvertisingReport) {
        let data = AdvertisingData(report.data)
        let key = report.address.text
        seenKinds[key] = report.address.kind
        if let name = data.name { seenNames[key] = name }
        guard let services = scanServices else { return }
        if !services.isEmpty, !data.services.contains(where: services.contains) { return }
        emit(.advertisement(Advertisement(peer: PeerIdentifier(report.address.description), name: data.name ?? seenNames[key],
                                          services: data.services, rssi: report.rssi, manufacturerData: data.manufacturerData)))
    }

    private func connectFailed(_ peer: DeviceAddress, _ error: HostError) {
        if cancelling.remove(peer.text) != nil {
            return emit(.disconnected(PeerIdentifier(peer.description), .localHostTerminated))
        }
        let code: Int
        if case .commandFailed(_, let status) = error { code = Int(status) } else { code = 0 }
        emit(.connectFailed(PeerIdentifier(peer.description), TransportFailure(code: code, error.description)))
    }

    private func disconnected(_ link: HostLink, reason: UInt8) {
        let peer = PeerIdentifier(link.peer.description)
        if cancelling.remove(link.peer.text) != nil { return emit(.disconnected(peer, .localHostTerminated)) }
        let mapped: DisconnectReason
        switch reason {
        case HCIStatus.remoteUserTerminated, 0x14, 0x15: mapped = .remoteTerminated
        case HCIStatus.connectionTimeout: mapped = .supervisionTimeout
        case HCIStatus.localHostTerminated: mapped = .localHostTerminated
        default: mapped = .other(code: Int(reason), message: HCIStatus.describe(reason))
        }
        emit(.disconnected(peer, mapped))
    }

    // MARK: Helpers

    private func address(_ peer: PeerIdentifier) -> DeviceAddress? {
        let text = peer.rawValue
        if text.contains("/") { return DeviceAddress(text) }
        guard var address = DeviceAddress(text) else { return nil }
        if let kind = seenKinds[address.text] { address.kind = kind }
        return address
    }

    private func emit(_ event: TransportEvent) {
        scheduler.execute(label: "host transport: event") { [weak self] in self?.eventHandler?(event) }
    }

    private static func failure(_ error: ATTClientError) -> TransportFailure {
        TransportFailure(code: error.code, error.description)
    }
}
