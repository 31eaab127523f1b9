#if canImport(CoreBluetooth)
import CoreBluetooth
import Foundation

/// ``BLETransport`` over CoreBluetooth: a `CBCentralManager` delivering on the link's queue,
/// peripherals kept by strong reference per identifier (CoreBluetooth drops a connection whose
/// `CBPeripheral` is released), and state restoration handed to the link as `restored`.
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
        eventHandler?(.powerChanged(central.state == .poweredOn))
    }

    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        let restored = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        for peripheral in restored {
            peripheral.delegate = self
            peripherals[identifier(peripheral)] = peripheral
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
        eventHandler?(.connected(identifier(peripheral)))
    }

    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        eventHandler?(.connectFailed(identifier(peripheral), failure(error, "connection failed")))
    }

    public func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        let peer = identifier(peripheral)
        characteristics[peer] = nil
        discoveries[peer] = nil
        if answeredCancels.remove(peer) != nil { return }
        eventHandler?(.disconnected(peer, reason(error)))
    }

    // MARK: CBPeripheralDelegate

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        let peer = identifier(peripheral)
        guard let wanted = discoveries[peer] else { return }
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
        if let error {
            eventHandler?(.servicesDiscovered(peer, .failure(failure(error, "characteristic discovery failed"))))
            return
        }
        var found: [BLEUUID: CBCharacteristic] = [:]
        for characteristic in service.characteristics ?? [] { found[BLEUUID(characteristic.uuid.uuidString)] = characteristic }
        characteristics[peer] = found
        eventHandler?(.servicesDiscovered(peer, .success(Set(found.keys))))
    }

    public func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?) {
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
