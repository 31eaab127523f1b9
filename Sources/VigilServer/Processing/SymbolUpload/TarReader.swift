import Foundation

/// Extracts the regular files of a tar archive (POSIX ustar, GNU long names, pax `path`).
///
/// Headers are checked (checksum, octal or base-256 sizes, sizes within the file); anything
/// else (links, devices, directories) is skipped. Names are for display only.
enum TarReader {
    static func looksLikeTar(_ header: [UInt8]) -> Bool {
        header.count >= 512 && Array(header[257..<262]) == Array("ustar".utf8)
    }

    static func extract(_ file: UploadFile, into directory: ExtractionDirectory) throws {
        var offset: UInt64 = 0
        var longName: String?
        while offset + 512 <= file.size {
            let header = try file.read(at: offset, count: 512)
            if header.allSatisfy({ $0 == 0 }) { return }
            try verifyChecksum(header, offset: offset)
            let size = try number(header[124..<136], offset: offset + 124)
            let type = header[156]
            let dataStart = offset + 512
            guard size <= file.size - min(file.size, dataStart) else {
                throw ArchiveError(offset: offset, message: "a tar member claims \(size) bytes, more than the upload holds")
            }
            var name = longName ?? text(header[0..<100])
            if longName == nil, looksLikeTar(header) {
                let prefix = text(header[345..<500])
                if !prefix.isEmpty { name = prefix + "/" + name }
            }
            longName = nil
            switch type {
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"):
                try directory.add(name: name) { write in
                    try file.stream(at: dataStart, count: size, into: write)
                }
            case UInt8(ascii: "L"):
                longName = text(ArraySlice(try file.read(at: dataStart, count: Int(min(size, 4096)))))
            case UInt8(ascii: "x"):
                longName = paxPath(try file.read(at: dataStart, count: Int(min(size, 65_536))))
            default:
                break
            }
            offset = dataStart + (size + 511) / 512 * 512
        }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// An octal field, or GNU base-256 when the high bit of the first byte is set.
    private static func number(_ field: ArraySlice<UInt8>, offset: UInt64) throws -> UInt64 {
        if let first = field.first, first & 0x80 != 0 {
            var value: UInt64 = UInt64(first & 0x7F)
            for byte in field.dropFirst() {
                guard value >> 56 == 0 else { throw ArchiveError(offset: offset, message: "tar size too large") }
                value = value << 8 | UInt64(byte)
            }
            return value
        }
        let digits = field.prefix { $0 != 0 && $0 != 0x20 }.drop { $0 == 0x20 }
        guard let value = UInt64(String(decoding: digits.isEmpty ? [0x30] : Array(digits), as: UTF8.self), radix: 8) else {
            throw ArchiveError(offset: offset, message: "a tar size is not an octal number")
        }
        return value
    }

    private static func verifyChecksum(_ header: [UInt8], offset: UInt64) throws {
        let stored = try number(header[148..<156], offset: offset + 148)
        var sum: UInt64 = 0
        for (index, byte) in header.enumerated() { sum += (148..<156).contains(index) ? 0x20 : UInt64(byte) }
        guard sum == stored else { throw ArchiveError(offset: offset, message: "tar header checksum mismatch") }
    }

    /// The `path` record of a pax extended header (`<length> path=<value>\n`).
    private static func paxPath(_ bytes: [UInt8]) -> String? {
        for record in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let space = record.firstIndex(of: " ") else { continue }
            let entry = record[record.index(after: space)...]
            if entry.hasPrefix("path=") { return String(entry.dropFirst(5)) }
        }
        return nil
    }
}
