import VigilBLE

/// A primary service found by discovery.
public struct GATTService: Sendable, Hashable {
    /// The service UUID.
    public var uuid: BLEUUID
    /// Its first attribute handle (the service declaration).
    public var start: UInt16
    /// Its last attribute handle.
    public var end: UInt16
}

/// A characteristic found by discovery.
public struct GATTCharacteristic: Sendable, Hashable {
    /// Characteristic properties bits.
    public struct Properties: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let read = Properties(rawValue: 0x02)
        public static let writeWithoutResponse = Properties(rawValue: 0x04)
        public static let write = Properties(rawValue: 0x08)
        public static let notify = Properties(rawValue: 0x10)
        public static let indicate = Properties(rawValue: 0x20)
    }

    /// The characteristic UUID.
    public var uuid: BLEUUID
    /// Its declaration's handle.
    public var declarationHandle: UInt16
    /// Its value's handle.
    public var valueHandle: UInt16
    /// What it allows.
    public var properties: Properties
    /// The last handle that belongs to it (its descriptors end here).
    public var endHandle: UInt16
    /// Its Client Characteristic Configuration descriptor, once descriptors were discovered.
    public var configurationHandle: UInt16?
}

/// GATT client procedures over an ``ATTClient`` (Core spec Vol 3 Part G 4): primary service,
/// characteristic and descriptor discovery, long reads (Read then Read Blob), long writes
/// (Prepare Write then Execute Write, each echo checked), and subscriptions through the CCCD.
///
/// Confined to the ATT client's scheduler; every completion runs there.
public final class GATTClient {
    /// The ATT bearer.
    public let att: ATTClient

    /// A client on `att`.
    public init(att: ATTClient) { self.att = att }

    static let primaryService: BLEUUID = "2800"
    static let characteristicDeclaration: BLEUUID = "2803"
    static let clientCharacteristicConfiguration: BLEUUID = "2902"

    /// Every primary service, in handle order.
    public func discoverPrimaryServices(completion: @escaping (Result<[GATTService], ATTClientError>) -> Void) {
        var found: [GATTService] = []
        func step(_ start: UInt16) {
            att.readByGroupType(start: start, end: 0xFFFF, type: Self.primaryService) { result in
                switch result {
                case .failure(.attribute(.attributeNotFound, _, _)): completion(.success(found))
                case .failure(let error): completion(.failure(error))
                case .success(let entries):
                    var last = start
                    for entry in entries where entry.value.count == 2 || entry.value.count == 16 {
                        found.append(GATTService(uuid: UUIDCoding.uuid(entry.value), start: entry.start, end: entry.end))
                        last = max(last, entry.end)
                    }
                    // A server that answers with handles going backwards would loop forever.
                    if last == 0xFFFF || last < start || entries.isEmpty { completion(.success(found)) } else { step(last + 1) }
                }
            }
        }
        step(1)
    }

    /// The characteristics of `service`, each with its handle range.
    public func discoverCharacteristics(of service: GATTService,
                                        completion: @escaping (Result<[GATTCharacteristic], ATTClientError>) -> Void) {
        var found: [GATTCharacteristic] = []
        func done() {
            for i in found.indices {
                found[i].endHandle = i + 1 < found.count ? found[i + 1].declarationHandle - 1 : service.end
            }
            completion(.success(found))
        }
        func step(_ start: UInt16) {
            guard start <= service.end, start >= service.start else { return done() }
            att.readByType(start: start, end: service.end, type: Self.characteristicDeclaration) { result in
                switch result {
                case .failure(.attribute(.attributeNotFound, _, _)): done()
                case .failure(let error): completion(.failure(error))
                case .success(let entries):
                    var last = start
                    for entry in entries {
                        var r = PayloadReader(entry.value)
                        guard let properties = try? r.u8("Properties"), let valueHandle = try? r.u16("Value Handle"),
                              r.remaining == 2 || r.remaining == 16, entry.handle >= start else { continue }
                        found.append(GATTCharacteristic(uuid: UUIDCoding.uuid(r.rest()), declarationHandle: entry.handle,
                                                        valueHandle: valueHandle, properties: .init(rawValue: properties),
                                                        endHandle: service.end))
                        last = max(last, entry.handle)
                    }
                    if last >= service.end || last == 0xFFFF || entries.isEmpty { done() } else { step(last + 1) }
                }
            }
        }
        step(service.start)
    }

    /// Finds the Client Characteristic Configuration descriptor of `characteristic` (nil if it
    /// has none).
    public func discoverConfigurationDescriptor(of characteristic: GATTCharacteristic,
                                                completion: @escaping (Result<UInt16?, ATTClientError>) -> Void) {
        func step(_ start: UInt16) {
            guard start <= characteristic.endHandle, start > 0 else { return completion(.success(nil)) }
            att.findInformation(start: start, end: characteristic.endHandle) { result in
                switch result {
                case .failure(.attribute(.attributeNotFound, _, _)): completion(.success(nil))
                case .failure(let error): completion(.failure(error))
                case .success(let entries):
                    if let cccd = entries.first(where: { $0.type == Self.clientCharacteristicConfiguration }) {
                        return completion(.success(cccd.handle))
                    }
                    let last = entries.map(\.handle).max() ?? characteristic.endHandle
                    if last >= characteristic.endHandle || last < start { completion(.success(nil)) } else { step(last + 1) }
                }
            }
        }
        step(characteristic.valueHandle &+ 1)
    }

    /// Reads a whole value: Read, then Read Blob while the answers come back full.
    public func readLong(handle: UInt16, limit: Int = 512, completion: @escaping (Result<[UInt8], ATTClientError>) -> Void) {
        att.read(handle: handle) { [att] result in
            guard case .success(var value) = result else { return completion(result) }
            func more() {
                guard value.count < limit else { return completion(.success(value)) }
                att.readBlob(handle: handle, offset: UInt16(clamping: value.count)) { blob in
                    switch blob {
                    case .failure(.attribute(.attributeNotLong, _, _)), .failure(.attribute(.invalidOffset, _, _)):
                        completion(.success(value))
                    case .failure(let error): completion(.failure(error))
                    case .success(let part):
                        value += part
                        if part.count < att.mtu - 1 { completion(.success(value)) } else { more() }
                    }
                }
            }
            if value.count < att.mtu - 1 { completion(.success(value)) } else { more() }
        }
    }

    /// Writes `value` with a Write Request if it fits in one (MTU − 3), else as a long write:
    /// Prepare Write parts of MTU − 5, each echo compared with what was sent, then Execute
    /// Write; a mismatched echo cancels the queue and fails with a malformed-response error.
    public func write(handle: UInt16, value: [UInt8], completion: @escaping (Result<Void, ATTClientError>) -> Void) {
        if value.count <= att.mtu - 3 { return att.write(handle: handle, value: value, completion: completion) }
        let partSize = att.mtu - 5
        func step(_ offset: Int) {
            guard offset < value.count else { return att.executeWrite(commit: true, completion: completion) }
            let part = Array(value[offset..<min(value.count, offset + partSize)])
            att.prepareWrite(handle: handle, offset: UInt16(clamping: offset), part: part) { [att] result in
                switch result {
                case .failure(let error):
                    // The server may hold earlier parts; cancel them (the outcome does not matter).
                    if case .attribute = error { att.executeWrite(commit: false) { _ in } }
                    completion(.failure(error))
                case .success(let echo):
                    guard echo.handle == handle, Int(echo.offset) == offset, echo.part == part else {
                        att.executeWrite(commit: false) { _ in completion(.failure(.malformedResponse("Prepare Write echo differs"))) }
                        return
                    }
                    step(offset + part.count)
                }
            }
        }
        guard value.count <= 0xFFFF else { return completion(.failure(.attribute(.invalidAttributeValueLength, handle: handle, request: ATTOpcode.prepareWriteRequest))) }
        step(0)
    }

    /// Writes the CCCD: notifications (0x0001), indications (0x0002) or neither.
    public func configure(descriptor: UInt16, notify: Bool, indicate: Bool, completion: @escaping (Result<Void, ATTClientError>) -> Void) {
        let bits: UInt16 = (notify ? 1 : 0) | (indicate ? 2 : 0)
        var value: [UInt8] = []
        value.appendLE(bits)
        att.write(handle: descriptor, value: value, completion: completion)
    }
}
