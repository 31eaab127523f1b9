/// Borrowed bytes of a string inside a section or the file (no NUL), or "absent".
///
/// Plain pointer and length: copying it costs nothing and touches no reference counts. Valid
/// only while the bytes' owner (a ``ByteStorage``, kept by ``DWARFSections``) lives.
struct ByteString: Hashable {
    var start: UnsafeRawPointer?
    var count: Int

    static var absent: ByteString { ByteString(start: nil, count: -1) }

    init(start: UnsafeRawPointer?, count: Int) {
        self.start = start
        self.count = count
    }

    init(_ buffer: UnsafeRawBufferPointer) {
        start = buffer.baseAddress
        count = buffer.count
    }

    /// Whether there is a string (possibly empty).
    var exists: Bool { count >= 0 }

    var buffer: UnsafeRawBufferPointer {
        count > 0 ? UnsafeRawBufferPointer(start: start, count: count) : UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// The bytes as a Swift string (invalid UTF-8 is repaired).
    var string: String { String(decoding: buffer, as: UTF8.self) }

    static func == (left: ByteString, right: ByteString) -> Bool {
        guard left.count == right.count else { return false }
        if left.count <= 0 || left.start == right.start { return true }
        return memcmp(left.start!, right.start!, left.count) == 0
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: buffer)
    }

    /// Whether the string is an absolute path on POSIX (`/…`) or Windows (`C:\…`, `\\server…`).
    var isAbsolutePath: Bool {
        let bytes = buffer
        guard bytes.count > 0 else { return false }
        if bytes[0] == UInt8(ascii: "/") { return true }
        if bytes.count >= 3, bytes[1] == UInt8(ascii: ":"),
           bytes[2] == UInt8(ascii: "\\") || bytes[2] == UInt8(ascii: "/"),
           (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0] | 0x20) { return true }
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "\\"), bytes[2] != UInt8(ascii: "\\") { return true }
        return false
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
