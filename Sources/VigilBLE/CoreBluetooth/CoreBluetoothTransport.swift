#if canImport(CoreBluetooth)
import CoreBluetooth
import Foundation

/// ``BLETransport`` over CoreBluetooth: a `CBCentralManager` delivering on the link's queue,
/// peripherals kept by strong reference per identifier (CoreBluetooth drops a connection whose
/// `CBPeripheral` is released), and state restoration handed to the link as `restored`.
///
/// CoreBluetooth's edges handled here: a peripheral that changes its services
/// (`didModifyServices`) has the link's service discovered again and its subscriptions renewed;
/// power-off and reset drop every cached characteristic (and, on reset, every peripheral) and
/// disconnect the connected peers, since no `didDisconnectPeripheral` comes then; restored
/// peripherals that are still connected get their characteristics back from the restored
/// objects. State restoration (`restoreIdentifier`) only works in an app whose Info.plist lists
/// the `bluetooth-central` background mode (`UIBackgroundModes`); without it iOS never relaunches
/// the app for its peripherals.
///
/// Translation only: every decision (timeouts, retries, queues) lives in ``BLEConnection`` and
/// is tested on Linux against the simulator, which implements the same protocol. All methods
/// must be called on `scheduler.queue`, where every callback arrives.
public final class CoreBluetoothTransport: NSObject, BLETransport, CBCentralManagerDelegate, CBPeripheralDelegate, @unchecked Sendable {
    public var eventHandler: ((TransportEvent) -> Void)?
    /// The queue CoreBluetooth delivers on, shared with the link.
    public let scheduler: DispatchLinkScheduler

    private var central: CBCentralManager?
    private var peripherals: [PeerIdentifier: CBPeripheral] = [:]
    private var characteristics: [PeerIdentifier: [BLEUUID: CBCharacteristic]] = [:]
    private var discoveries: [PeerIdentifier: (service: BLEUUID, characteristics: [BLEUUID])] = [:]
    /// Peers whose cancel was answered synthetically; CoreBluetooth's own callback, if one
    /// still comes, is swallowed so that each cancel yields exactly one `disconnected`.
    private var answeredCancels: Set<PeerIdentifier> = []
    /// The last discovery asked per peer, repeated when the peripheral changes its services.
    private var lastDiscoveries: [PeerIdentifier: (service: BLEUUID, characteristics: [BLEUUID])] = [:]
    /// Characteristics the link subscribed to, re-subscribed after a rediscovery.
    private var subscriptions: [PeerIdentifier: Set<BLEUUID>] = [:]
    /// Peers a rediscovery is running for (its result is not the link's to resolve).
    private var rediscovering: Set<PeerIdentifier> = []
    /// Peers connected as far as this transport knows; CoreBluetooth reports no disconnection
    /// when the radio powers off or resets, so these are disconnected by hand then.
    private var connectedPeers: Set<PeerIdentifier> = []

    /// A transport on `scheduler`'s queue; `restoreIdentifier` opts into state restoration (iOS).
    public init(scheduler: DispatchLinkScheduler, restoreIdentifier: String? = nil) {
        self.scheduler = scheduler
        super.init()
        var options: [String: Any] = [:]
        #if os(iOS)
        if let restoreIdentifier { options[CBCentralManagerOptionRestoreIdentifierKey] = restoreIdentifier }
        #endif
        _ = restoreIdentifier
        central = CBCentralManager(delegate: self, queue: scheduler.queue, options: options)
    }

    public var isPoweredOn: Bool { central?.state == .poweredOn }

    public func startScan(services: [BLEUUID]) {
        central?.scanForPeripherals(withServices: services.isEmpty ? nil : services.map { CBUUID(string: $0.string) }, options: nil)
    }

    public func stopScan() { central?.stopScan() }

    public func connect(_ peer: PeerIdentifier) {
        guard let peripheral = peripheral(peer) else {
            post(.connectFailed(peer, TransportFailure("unknown peripheral \(peer)")))
            return
        }
        answeredCancels.remove(peer)
        central?.connect(peripheral, options: nil)
    }

    public func cancelConnection(_ peer: PeerIdentifier) {
        guard let peripheral = peripherals[peer] else {
            post(.disconnected(peer, .localHostTerminated))
            return
        }
        switch peripheral.state {
        case .connected, .disconnecting:
            central?.cancelPeripheralConnection(peripheral)  // answered by didDisconnectPeripheral
        default:
            central?.cancelPeripheralConnection(peripheral)
            answeredCancels.insert(peer)
            post(.disconnected(peer, .localHostTerminated))
        }
    }

    public func discover(service: BLEUUID, characteristics: [BLEUUID], on peer: PeerIdentifier) {
        guard let peripheral = peripherals[peer] else {
            post(.servicesDiscovered(peer, .failure(TransportFailure("not connected"))))
            return
        }
        discoveries[peer] = (service, characteristics)
        lastDiscoveries[peer] = (service, characteristics)
        rediscovering.remove(peer)  // this discovery's result is the link's
        peripheral.discoverServices([CBUUID(string: service.string)])
    }

    public func setNotifications(_ enabled: Bool, characteristic: BLEUUID, on peer: PeerIdentifier) {
        guard let peripheral = peripherals[peer], let found = characteristics[peer]?[characteristic] else {
            post(.notificationStateChanged(peer, characteristic, .failure(TransportFailure("characteristic not discovered"))))
            return
        }
        peripheral.setNotifyValue(enabled, for: found)
    }

    public func write(_ bytes: [UInt8], characteristic: BLEUUID, type: WriteType, on peer: PeerIdentifier) {
        guard let peripheral = peripherals[peer], let found = characteristics[peer]?[characteristic] else {
            if type == .withResponse { post(.wrote(peer, characteristic, .failure(TransportFailure("characteristic not discovered")))) }
            return
        }
        peripheral.writeValue(Data(bytes), for: found, type: type == .withResponse ? .withResponse : .withoutResponse)
    }

    public func canSendWriteWithoutResponse(_ peer: PeerIdentifier) -> Bool {
        peripherals[peer]?.canSendWriteWithoutResponse ?? false
    }

    public func maximumWriteLength(_ type: WriteType, for peer: PeerIdentifier) -> Int {
        peripherals[peer]?.maximumWriteValueLength(for: type == .withResponse ? .withResponse : .withoutResponse) ?? 0
    }

    public func readRSSI(_ peer: PeerIdentifier) { peripherals[peer]?.readRSSI() }

    // MARK: CBCentralManagerDelegate

    public func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state != .poweredOn {
            // Powered off, resetting, unauthorized: every connection is gone and every
            // characteristic object is invalid (after a reset, every CBPeripheral too), without a
            // didDisconnectPeripheral. Drop the caches and tell the link.
            let lost = connectedPeers
            connectedPeers = []
            characteristics = [:]
            discoveries = [:]
            rediscovering = []
            subscriptions = [:]
            if central.state == .resetting { peripherals = [:] }
            for peer in lost.sorted(by: { $0.rawValue < $1.rawValue }) { eventHandler?(.disconnected(peer, .poweredOff)) }
        }
        eventHandler?(.powerChanged(central.state == .poweredOn))
    }

    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        let restored = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        for peripheral in restored {
            let peer = identifier(peripheral)
            peripheral.delegate = self
            peripherals[peer] = peripheral
            // A restored peripheral keeps its state, services and characteristics: a connected
            // one is usable at once (the link's reconnect completes immediately), so its cache
            // is rebuilt from what CoreBluetooth restored instead of being discovered again.
            guard peripheral.state == .connected else { continue }
            connectedPeers.insert(peer)
            var found: [BLEUUID: CBCharacteristic] = [:]
            for service in peripheral.services ?? [] {
                for characteristic in service.characteristics ?? [] {
                    found[BLEUUID(characteristic.uuid.uuidString)] = characteristic
                    if characteristic.isNotifying { subscriptions[peer, default: []].insert(BLEUUID(characteristic.uuid.uuidString)) }
                }
            }
            if !found.isEmpty { characteristics[peer] = found }
        }
        eventHandler?(.restored(restored.map(identifier)))
    }

    public func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                               advertisementData: [String: Any], rssi RSSI: NSNumber) {
        let peer = identifier(peripheral)
        peripherals[peer] = peripheral
        let services = (advertisementData[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID] ?? []).map { BLEUUID($0.uuidString) }
        let name = advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? peripheral.name
        let manufacturer = (advertisementData[CBAdvertisementDataManufacturerDataKey] as? Data).map { [UInt8]($0) } ?? []
        eventHandler?(.advertisement(Advertisement(peer: peer, name: name, services: services, rssi: RSSI.intValue,
                                                   manufacturerData: manufacturer)))
    }

    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        connectedPeers.insert(identifier(peripheral))
        eventHandler?(.connected(identifier(peripheral)))
    }

    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        eventHandler?(.connectFailed(identifier(peripheral), failure(error, "connection failed")))
    }

    public func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        let peer = identifier(peripheral)
        characteristics[peer] = nil
        discoveries[peer] = nil
        rediscovering.remove(peer)
        subscriptions[peer] = nil
        lastDiscoveries[peer] = nil
        connectedPeers.remove(peer)
        if answeredCancels.remove(peer) != nil { return }
        eventHandler?(.disconnected(peer, reason(error)))
    }

    // MARK: CBPeripheralDelegate

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        let peer = identifier(peripheral)
        guard let wanted = discoveries[peer] else { return }
        if rediscovering.contains(peer), error != nil || peripheral.services?.contains(where: { BLEUUID($0.uuid.uuidString) == wanted.service }) != true {
            // A rediscovery after a service change that found nothing: the link learns of it when
            // its next operation on the characteristic fails.
            rediscovering.remove(peer)
            discoveries[peer] = nil
            return
        }
        if let error {
            discoveries[peer] = nil
            eventHandler?(.servicesDiscovered(peer, .failure(failure(error, "service discovery failed"))))
            return
        }
        guard let service = peripheral.services?.first(where: { BLEUUID($0.uuid.uuidString) == wanted.service }) else {
            discoveries[peer] = nil
            eventHandler?(.servicesDiscovered(peer, .success([])))
            return
        }
        peripheral.discoverCharacteristics(wanted.characteristics.map { CBUUID(string: $0.string) }, for: service)
    }

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        let peer = identifier(peripheral)
        guard discoveries.removeValue(forKey: peer) != nil else { return }
        if rediscovering.remove(peer) != nil {
            // After the peripheral changed its services: new characteristic objects replace the
            // invalidated ones, and the link's subscriptions are renewed on them.
            var found: [BLEUUID: CBCharacteristic] = [:]
            for characteristic in service.characteristics ?? [] { found[BLEUUID(characteristic.uuid.uuidString)] = characteristic }
            characteristics[peer] = found
            for uuid in subscriptions[peer] ?? [] { if let characteristic = found[uuid] { peripheral.setNotifyValue(true, for: characteristic) } }
            return
        }
        if let error {
            eventHandler?(.servicesDiscovered(peer, .failure(failure(error, "characteristic discovery failed"))))
            return
        }
        var found: [BLEUUID: CBCharacteristic] = [:]
        for characteristic in service.characteristics ?? [] { found[BLEUUID(characteristic.uuid.uuidString)] = characteristic }
        characteristics[peer] = found
        eventHandler?(.servicesDiscovered(peer, .success(Set(found.keys))))
    }

    /// The peripheral changed its GATT database (Service Changed): the listed services and their
    /// characteristic objects are invalid. When the service the link uses is among them, it is
    /// discovered again with the same characteristics, and subscriptions are renewed; the link
    /// keeps its connection.
    public func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        let peer = identifier(peripheral)
        guard let last = lastDiscoveries[peer],
              invalidatedServices.contains(where: { BLEUUID($0.uuid.uuidString) == last.service }) else { return }
        characteristics[peer] = nil
        guard discoveries[peer] == nil else { return }  // the link's own discovery is running; it will fill the cache
        discoveries[peer] = last
        rediscovering.insert(peer)
        peripheral.discoverServices([CBUUID(string: last.service.string)])
    }

    public func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
        let peer = identifier(peripheral)
        let uuid = BLEUUID(characteristic.uuid.uuidString)
        if error == nil {
            if characteristic.isNotifying { subscriptions[peer, default: []].insert(uuid) } else { subscriptions[peer]?.remove(uuid) }
        }
        let result: Result<Bool, TransportFailure> = error.map { .failure(failure($0, "notification state")) } ?? .success(characteristic.isNotifying)
        eventHandler?(.notificationStateChanged(identifier(peripheral), BLEUUID(characteristic.uuid.uuidString), result))
    }

    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
        let result: Result<Void, TransportFailure> = error.map { .failure(failure($0, "write failed")) } ?? .success(())
        eventHandler?(.wrote(identifier(peripheral), BLEUUID(characteristic.uuid.uuidString), result))
    }

    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard error == nil, let value = characteristic.value else { return }
        eventHandler?(.valueReceived(identifier(peripheral), BLEUUID(characteristic.uuid.uuidString), [UInt8](value)))
    }

    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        eventHandler?(.readyToSendWriteWithoutResponse(identifier(peripheral)))
    }

    public func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: Error?) {
        guard error == nil else { return }
        eventHandler?(.rssiRead(identifier(peripheral), RSSI.intValue))
    }

    // MARK: Helpers

    private func identifier(_ peripheral: CBPeripheral) -> PeerIdentifier { PeerIdentifier(peripheral.identifier.uuidString) }

    private func peripheral(_ peer: PeerIdentifier) -> CBPeripheral? {
        if let known = peripherals[peer] { return known }
        guard let uuid = UUID(uuidString: peer.rawValue), let found = central?.retrievePeripherals(withIdentifiers: [uuid]).first else {
            return nil
        }
        peripherals[peer] = found
        return found
    }

    /// Delivers a synthesised event later on the queue (never re-entering the caller).
    private func post(_ event: TransportEvent) {
        scheduler.queue.async { [weak self] in self?.eventHandler?(event) }
    }

    private func failure(_ error: Error?, _ fallback: String) -> TransportFailure {
        guard let error else { return TransportFailure(fallback) }
        let nsError = error as NSError
        return TransportFailure(code: nsError.code, nsError.localizedDescription)
    }

    private func reason(_ error: Error?) -> DisconnectReason {
        guard let error else { return .localHostTerminated }
        let nsError = error as NSError
        guard nsError.domain == CBErrorDomain else { return .other(code: nsError.code, message: nsError.localizedDescription) }
        switch CBError.Code(rawValue: nsError.code) {
        case .connectionTimeout?: return .supervisionTimeout
        case .peripheralDisconnected?: return .remoteTerminated
        default: return .other(code: nsError.code, message: nsError.localizedDescription)
        }
    }
}
#endif
