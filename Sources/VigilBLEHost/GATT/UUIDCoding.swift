import VigilBLE

/// Converts between ``VigilBLE/BLEUUID`` and the little-endian 2-, 4- or 16-byte forms ATT and
/// advertising data carry.
///
/// A 128-bit UUID built on the Bluetooth Base UUID (`0000xxxx-0000-1000-8000-00805F9B34FB`)
/// is shortened to its 16- or 32-bit form, as CoreBluetooth reports it, so that `180A` and its
/// long spelling compare equal.
public enum UUIDCoding {
    private static let baseSuffix: [UInt8] = [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    /// The UUID in `bytes` (little-endian, 2, 4 or 16 bytes); other lengths give their hex.
    public static func uuid(_ bytes: [UInt8]) -> BLEUUID {
        let bigEndian = Array(bytes.reversed())
        if bigEndian.count == 16, Array(bigEndian[4...]) == baseSuffix {
            let short = Array(bigEndian[0..<4])
            return short[0] == 0 && short[1] == 0 ? BLEUUID(hex(Array(short[2...]))) : BLEUUID(hex(short))
        }
        guard bigEndian.count == 16 else { return BLEUUID(hex(bigEndian)) }
        let h = hex(bigEndian)
        let c = Array(h)
        return BLEUUID(String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32]))
    }

    /// The UUID's little-endian bytes: 2 for a 16-bit UUID, 16 otherwise (ATT carries only
    /// those two widths); nil if the text is not a UUID.
    public static func bytes(_ uuid: BLEUUID) -> [UInt8]? {
        let digits = uuid.string.filter { $0 != "-" }
        guard digits.allSatisfy(\.isHexDigit) else { return nil }
        var bigEndian: [UInt8]
        switch digits.count {
        case 4: return parse(digits)?.reversed()
        case 8:
            guard let short = parse(digits) else { return nil }
            bigEndian = short + baseSuffix
        case 32:
            guard let full = parse(digits) else { return nil }
            bigEndian = full
        default: return nil
        }
        return bigEndian.reversed()
    }

    /// The canonical spelling of `uuid` (a Base-UUID 128-bit form shortened), so that it
    /// compares equal to what discovery reports.
    public static func normalized(_ uuid: BLEUUID) -> BLEUUID {
        guard let b = bytes(uuid) else { return uuid }
        return self.uuid(b)
    }

    private static func parse(_ digits: String) -> [UInt8]? {
        let chars = Array(digits)
        var out: [UInt8] = []
        var i = 0
        while i + 1 < chars.count {
            guard let byte = UInt8(String(chars[i...i + 1]), radix: 16) else { return nil }
            out.append(byte)
            i += 2
        }
        return out
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { b in
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }
}
