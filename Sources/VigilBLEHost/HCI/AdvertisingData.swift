import VigilBLE

/// Advertising data decoded from its AD structures (Core spec Supplement Part A 1): the local
/// name, the service UUIDs and manufacturer data. Malformed structures end the parse (what was
/// read before them is kept), so any byte string decodes without trapping.
public struct AdvertisingData: Sendable, Hashable {
    /// Complete or shortened local name.
    public var name: String?
    /// Service UUIDs from the 16-, 32- and 128-bit lists, complete or not.
    public var services: [BLEUUID] = []
    /// Manufacturer-specific data, company identifier included.
    public var manufacturerData: [UInt8] = []

    /// Decodes `bytes`.
    public init(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            guard length > 0, index + 1 + length <= bytes.count else { break }
            let type = bytes[index + 1]
            let value = Array(bytes[(index + 2)..<(index + 1 + length)])
            switch type {
            case 0x02, 0x03: services += stride(from: 0, to: value.count - 1, by: 2).map { UUIDCoding.uuid(Array(value[$0..<$0 + 2])) }
            case 0x04, 0x05: services += stride(from: 0, to: value.count - 3, by: 4).map { UUIDCoding.uuid(Array(value[$0..<$0 + 4])) }
            case 0x06, 0x07: services += stride(from: 0, to: value.count - 15, by: 16).map { UUIDCoding.uuid(Array(value[$0..<$0 + 16])) }
            case 0x08: if name == nil { name = String(decoding: value, as: UTF8.self) }
            case 0x09: name = String(decoding: value, as: UTF8.self)
            case 0xFF: manufacturerData = value
            default: break
            }
            index += 1 + length
        }
    }
}
