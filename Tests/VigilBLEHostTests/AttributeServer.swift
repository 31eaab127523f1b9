import VigilBLE
@testable import VigilBLEHost

/// A minimal ATT server over an attribute table, for driving the GATT client in tests: Read By
/// Group Type, Read By Type, Find Information, Read, Read Blob, Write, Prepare/Execute Write,
/// following Core spec Vol 3 Part F 3.4. It answers synchronously through `reply`.
final class AttributeServer {
    struct Attribute {
        var handle: UInt16
        var type: BLEUUID
        var value: [UInt8]
        var writable = false
    }

    var attributes: [Attribute] = []
    var mtu = 23
    var prepared: [(UInt16, UInt16, [UInt8])] = []
    var requests: [UInt8] = []
    var reply: ([UInt8]) -> Void = { _ in }
    /// Corrupts the echo of Prepare Write responses (to test the client's check).
    var corruptPrepareEcho = false

    /// A service with characteristics (uuid, properties, value, has CCCD) laid out from `start`.
    func addService(_ uuid: BLEUUID, start: UInt16, characteristics: [(BLEUUID, UInt8, [UInt8], Bool)]) {
        var handle = start
        attributes.append(Attribute(handle: handle, type: "2800", value: UUIDCoding.bytes(uuid)!))
        for (uuid, properties, value, cccd) in characteristics {
            handle += 1
            var declaration: [UInt8] = [properties]
            declaration.appendLE(handle + 1)
            declaration += UUIDCoding.bytes(uuid)!
            attributes.append(Attribute(handle: handle, type: "2803", value: declaration))
            handle += 1
            attributes.append(Attribute(handle: handle, type: uuid, value: value, writable: true))
            if cccd {
                handle += 1
                attributes.append(Attribute(handle: handle, type: "2902", value: [0, 0], writable: true))
            }
        }
    }

    func value(_ handle: UInt16) -> [UInt8]? { attributes.first { $0.handle == handle }?.value }

    private func error(_ request: UInt8, _ handle: UInt16, _ code: UInt8) {
        var pdu: [UInt8] = [0x01, request]
        pdu.appendLE(handle)
        pdu.append(code)
        reply(pdu)
    }

    func receive(_ pdu: [UInt8]) {
        guard let opcode = pdu.first else { return }
        requests.append(opcode)
        func u16(_ at: Int) -> UInt16 { UInt16(pdu[at]) | UInt16(pdu[at + 1]) << 8 }
        switch opcode {
        case 0x10, 0x08:
            let start = u16(1), end = u16(3)
            let type = UUIDCoding.uuid(Array(pdu[5...]))
            let matches = attributes.filter { $0.handle >= start && $0.handle <= end && $0.type == type }
            guard let first = matches.first else { return error(opcode, start, 0x0A) }
            let length = first.value.count
            var body: [UInt8] = []
            // Only a run of values as long as the first (Vol 3 Part F 3.4.4.10).
            for attribute in matches {
                guard attribute.value.count == length else { break }
                let entry = (opcode == 0x10 ? 6 : 4) + length - 2
                guard 2 + body.count + entry <= mtu else { break }
                body.appendLE(attribute.handle)
                if opcode == 0x10 {
                    let next = attributes.first { $0.handle > attribute.handle && $0.type == "2800" }?.handle
                    body.appendLE(next.map { $0 - 1 } ?? attributes.last!.handle)
                }
                body += attribute.value
            }
            reply([opcode + 1, UInt8((opcode == 0x10 ? 4 : 2) + length)] + body)
        case 0x04:
            let start = u16(1), end = u16(3)
            let matches = attributes.filter { $0.handle >= start && $0.handle <= end }
            guard !matches.isEmpty else { return error(opcode, start, 0x0A) }
            var body: [UInt8] = [0x01]
            for attribute in matches.prefix((mtu - 2) / 4) {
                body.appendLE(attribute.handle)
                body += UUIDCoding.bytes(attribute.type)!
            }
            reply([0x05] + body)
        case 0x0A, 0x0C:
            let handle = u16(1)
            let offset = opcode == 0x0C ? Int(u16(3)) : 0
            guard let value = value(handle) else { return error(opcode, handle, 0x01) }
            guard offset <= value.count else { return error(opcode, handle, 0x07) }
            reply([opcode + 1] + Array(value[offset...].prefix(mtu - 1)))
        case 0x12:
            let handle = u16(1)
            guard let index = attributes.firstIndex(where: { $0.handle == handle }), attributes[index].writable else {
                return error(opcode, handle, 0x03)
            }
            attributes[index].value = Array(pdu[3...])
            reply([0x13])
        case 0x16:
            let handle = u16(1), offset = u16(3)
            prepared.append((handle, offset, Array(pdu[5...])))
            var echo = pdu
            echo[0] = 0x17
            if corruptPrepareEcho { echo[echo.count - 1] ^= 0xFF }
            reply(echo)
        case 0x18:
            if pdu[1] == 1 {
                for (handle, offset, part) in prepared {
                    guard let index = attributes.firstIndex(where: { $0.handle == handle }) else { continue }
                    var value = attributes[index].value
                    if Int(offset) == 0 { value = [] }
                    value += part
                    attributes[index].value = value
                }
            }
            prepared = []
            reply([0x19])
        default:
            error(opcode, 0, 0x06)
        }
    }
}
