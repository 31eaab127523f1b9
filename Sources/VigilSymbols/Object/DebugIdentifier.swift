/// The identity of a binary and of the debug file that matches it: a Mach-O `LC_UUID` or an
/// ELF GNU build id.
///
/// The server keys SymCaches by ``description`` (Mach-O: the uppercase dashed UUID, as crash
/// reports and the event schema's `images[].id` print it; ELF: the lowercase hex build id).
/// ``init(_:)`` parses either spelling, in any case, with or without dashes, so identifiers
/// from different tools compare equal.
public struct DebugIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// What kind of identifier it is.
    public enum Kind: String, Sendable, Hashable {
        /// A Mach-O `LC_UUID` (16 bytes).
        case uuid
        /// An ELF `NT_GNU_BUILD_ID` note (usually 20 bytes, any length up to 64).
        case buildID
    }

    /// The kind of identifier.
    public let kind: Kind
    /// The identifier's bytes, in file order.
    public let bytes: [UInt8]

    /// An identifier from its bytes. A 16-byte `.uuid`; a `.buildID` of 1…64 bytes.
    public init?(kind: Kind, bytes: [UInt8]) {
        switch kind {
        case .uuid: guard bytes.count == 16 else { return nil }
        case .buildID: guard (1...64).contains(bytes.count) else { return nil }
        }
        self.kind = kind
        self.bytes = bytes
    }

    /// Parses a UUID (`82D13D98-219E-3040-B62A-07A297007A7C`, dashes and case optional) or a
    /// hex build id (any even number of hex digits other than 32 without dashes is a build id;
    /// 32 digits are read as a UUID, the common case for Apple binaries).
    public init?(_ text: String) {
        let hasDashes = text.contains("-")
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(byte - UInt8(ascii: "A") + 10)
            case UInt8(ascii: "-"): continue
            default: return nil
            }
        }
        guard !nibbles.isEmpty, nibbles.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(nibbles.count / 2)
        var index = 0
        while index < nibbles.count {
            bytes.append(nibbles[index] << 4 | nibbles[index + 1])
            index += 2
        }
        if bytes.count == 16 || hasDashes {
            self.init(kind: .uuid, bytes: bytes)
        } else {
            self.init(kind: .buildID, bytes: bytes)
        }
    }

    /// Uppercase dashed UUID (`82D13D98-219E-3040-B62A-07A297007A7C`) or lowercase hex build id.
    public var description: String {
        switch kind {
        case .uuid:
            var text = ""
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { text += "-" }
                text += DebugIdentifier.hex(byte, uppercase: true)
            }
            return text
        case .buildID:
            return bytes.map { DebugIdentifier.hex($0, uppercase: false) }.joined()
        }
    }

    private static func hex(_ byte: UInt8, uppercase: Bool) -> String {
        let digits: [Character] = uppercase ? Array("0123456789ABCDEF") : Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
