/// Builds small 64-bit little-endian ELF files in memory with hand-made sections, so tests can
/// feed the DWARF reader exactly the malformed structure they are about.
struct SyntheticELF {
    struct Section {
        var name: String
        var type: UInt32 = 1 // SHT_PROGBITS
        var flags: UInt64 = 0
        var address: UInt64 = 0
        var data: [UInt8]
    }

    var sections: [Section] = []

    mutating func add(_ name: String, _ data: [UInt8], type: UInt32 = 1, flags: UInt64 = 0, address: UInt64 = 0) {
        sections.append(Section(name: name, type: type, flags: flags, address: address, data: data))
    }

    /// The file: header, section contents, name table, section headers.
    func bytes() -> [UInt8] {
        var names: [UInt8] = [0]
        var nameOffsets: [Int] = []
        for section in sections + [Section(name: ".shstrtab", type: 3, data: [])] {
            nameOffsets.append(names.count)
            names += Array(section.name.utf8) + [0]
        }
        var file = [UInt8](repeating: 0, count: 64)
        var offsets: [Int] = []
        for section in sections {
            offsets.append(file.count)
            file += section.data
        }
        let namesOffset = file.count
        file += names
        while file.count % 8 != 0 { file.append(0) }
        let headersOffset = file.count
        func put(_ value: UInt64, _ width: Int) { for index in 0..<width { file.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) } }
        file += [UInt8](repeating: 0, count: 64) // null section
        for (index, section) in sections.enumerated() {
            put(UInt64(nameOffsets[index]), 4); put(UInt64(section.type), 4); put(section.flags, 8); put(section.address, 8)
            put(UInt64(offsets[index]), 8); put(UInt64(section.data.count), 8); put(0, 4); put(0, 4); put(1, 8); put(0, 8)
        }
        put(UInt64(nameOffsets[sections.count]), 4); put(3, 4); put(0, 8); put(0, 8)
        put(UInt64(namesOffset), 8); put(UInt64(names.count), 8); put(0, 4); put(0, 4); put(1, 8); put(0, 8)
        var header: [UInt8] = [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 8)
        func field(_ value: UInt64, _ width: Int) { for index in 0..<width { header.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) } }
        field(2, 2); field(62, 2); field(1, 4); field(0, 8); field(0, 8); field(UInt64(headersOffset), 8)
        field(0, 4); field(64, 2); field(56, 2); field(0, 2); field(64, 2); field(UInt64(sections.count + 2), 2)
        field(UInt64(sections.count + 1), 2)
        file.replaceSubrange(0..<64, with: header)
        return file
    }
}

/// Little helpers to write DWARF by hand.
enum DWARFBytes {
    static func uleb(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var remaining = value
        repeat {
            var byte = UInt8(remaining & 0x7f)
            remaining >>= 7
            if remaining != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while remaining != 0
        return bytes
    }

    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) } }
    static func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
    static func string(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    /// One abbreviation: code, tag, children flag, (attribute, form) pairs.
    static func abbreviation(_ code: UInt64, tag: UInt64, children: Bool, _ attributes: [(UInt64, UInt64)]) -> [UInt8] {
        var bytes = uleb(code) + uleb(tag) + [children ? 1 : 0]
        for (attribute, form) in attributes { bytes += uleb(attribute) + uleb(form) }
        return bytes + [0, 0]
    }

    /// A DWARF 4 compile unit header (32-bit format, 8-byte addresses) around `dies`.
    static func unit(_ dies: [UInt8], abbreviationOffset: UInt32 = 0) -> [UInt8] {
        let body = u16(4) + u32(abbreviationOffset) + [8] + dies
        return u32(UInt32(body.count)) + body
    }

    /// The offset of the first DIE of a unit built by ``unit(_:abbreviationOffset:)``.
    static let firstDIEOffset = 11
}
