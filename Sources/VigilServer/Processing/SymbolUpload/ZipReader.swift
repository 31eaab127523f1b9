import CZlib
import Foundation

/// Extracts the files of a zip archive (stored or deflated members, as `ditto -c -k` and `zip`
/// write dSYM bundles) through its central directory, checking each member's CRC-32.
///
/// Zip64 archives are refused with a clear reason; inflating stops at the member's declared
/// size, so a forged size cannot turn into a bomb.
enum ZipReader {
    static func looksLikeZip(_ header: [UInt8]) -> Bool {
        header.count >= 4 && header[0] == 0x50 && header[1] == 0x4B && header[2] == 0x03 && header[3] == 0x04
    }

    static func extract(_ file: UploadFile, into directory: ExtractionDirectory) throws {
        let tailLength = Int(min(file.size, 65_557))
        let tailStart = file.size - UInt64(tailLength)
        let tail = try file.read(at: tailStart, count: tailLength)
        guard tailLength >= 22, let end = stride(from: tailLength - 22, through: 0, by: -1).first(where: {
            tail[$0] == 0x50 && tail[$0 + 1] == 0x4B && tail[$0 + 2] == 0x05 && tail[$0 + 3] == 0x06
        }) else {
            throw ArchiveError(offset: file.size, message: "no zip end-of-central-directory record")
        }
        let entries = Int(u16(tail, end + 10))
        let directorySize = UInt64(u32(tail, end + 12))
        let directoryOffset = UInt64(u32(tail, end + 16))
        guard entries != 0xFFFF, directoryOffset != 0xFFFF_FFFF else {
            throw ArchiveError(offset: tailStart + UInt64(end), message: "zip64 archives are not supported; upload the files or a tar")
        }
        let central = try file.read(at: directoryOffset, count: Int(directorySize))
        var position = 0
        for _ in 0..<entries {
            guard position + 46 <= central.count, u32(central, position) == 0x0201_4B50 else {
                throw ArchiveError(offset: directoryOffset + UInt64(position), message: "bad zip central directory entry")
            }
            let method = u16(central, position + 10)
            let crc = u32(central, position + 16)
            let compressed = UInt64(u32(central, position + 20))
            let uncompressed = UInt64(u32(central, position + 24))
            let nameLength = Int(u16(central, position + 28))
            let extraLength = Int(u16(central, position + 30))
            let commentLength = Int(u16(central, position + 32))
            let localOffset = UInt64(u32(central, position + 42))
            guard position + 46 + nameLength <= central.count else {
                throw ArchiveError(offset: directoryOffset + UInt64(position), message: "zip entry name runs past the directory")
            }
            let name = String(decoding: central[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
            position += 46 + nameLength + extraLength + commentLength
            if name.hasSuffix("/") { continue }
            guard compressed != 0xFFFF_FFFF, uncompressed != 0xFFFF_FFFF else {
                throw ArchiveError(offset: localOffset, message: "zip64 members are not supported")
            }
            let local = try file.read(at: localOffset, count: 30)
            guard u32(local, 0) == 0x0403_4B50 else { throw ArchiveError(offset: localOffset, message: "bad zip local header") }
            let dataStart = localOffset + 30 + UInt64(u16(local, 26)) + UInt64(u16(local, 28))
            var checksum = crc32(0, nil, 0)
            var produced: UInt64 = 0
            try directory.add(name: name) { write in
                func emit(_ bytes: UnsafeRawBufferPointer) throws {
                    produced += UInt64(bytes.count)
                    guard produced <= uncompressed else {
                        throw ArchiveError(offset: dataStart, message: "\(name) inflates past its declared \(uncompressed) bytes")
                    }
                    checksum = crc32(checksum, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
                    try write(bytes)
                }
                switch method {
                case 0:
                    try file.stream(at: dataStart, count: compressed, into: emit)
                case 8:
                    let inflater = try RawInflater(limit: uncompressed)
                    try file.stream(at: dataStart, count: compressed) { piece in try inflater.feed(piece, sink: emit) }
                    guard inflater.finished else { throw ArchiveError(offset: dataStart, message: "\(name) is truncated") }
                default:
                    throw ArchiveError(offset: localOffset, message: "\(name) uses zip compression method \(method); only stored and deflate are read")
                }
            }
            guard produced == uncompressed, UInt32(truncatingIfNeeded: checksum) == crc else {
                throw ArchiveError(offset: localOffset, message: "\(name) does not match its size or CRC-32")
            }
        }
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}

/// Raw deflate (no zlib or gzip wrapper), as zip members hold it, with an output cap.
final class RawInflater {
    private var stream = z_stream()
    private let limit: UInt64
    private var produced: UInt64 = 0
    private(set) var finished = false

    init(limit: UInt64) throws {
        self.limit = limit
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ArchiveError(offset: 0, message: "inflateInit2 failed")
        }
    }

    deinit { inflateEnd(&stream) }

    func feed(_ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress, input.count > 0, !finished else { return }
        var output = [UInt8](repeating: 0, count: 256 * 1024)
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        defer { stream.next_in = nil; stream.avail_in = 0 }
        while stream.avail_in > 0 && !finished {
            let status = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let count = output.count - Int(stream.avail_out)
            produced += UInt64(count)
            guard produced <= limit else { throw ArchiveError(offset: 0, message: "a zip member inflates past its declared size") }
            if count > 0 { try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<count])) } }
            switch status {
            case Z_OK: continue
            case Z_STREAM_END: finished = true
            case Z_BUF_ERROR where stream.avail_in == 0: return
            default: throw ArchiveError(offset: 0, message: "corrupt deflate data (\(status))")
            }
        }
    }
}
