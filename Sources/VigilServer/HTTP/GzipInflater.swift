import CZlib
import Foundation

/// Inflates a gzip stream piece by piece with a hard cap on the output, so a small body that
/// inflates to gigabytes (a gzip bomb) is refused after at most `limit` bytes of work.
///
/// Accepts concatenated gzip members (what `cat a.gz b.gz` produces). Not thread-safe; one
/// inflater per body. Cost: zlib's inflate, about 300–500 MB/s of output on one core.
public final class GzipInflater {
    private var stream = z_stream()
    private var initialized = false
    private var finishedMember = false
    /// Largest total output accepted, in bytes.
    public let limit: Int64
    /// Output produced so far, in bytes.
    public private(set) var produced: Int64 = 0
    /// Input consumed so far, in bytes.
    public private(set) var consumed: Int64 = 0

    /// Creates an inflater that refuses to produce more than `limit` bytes.
    public init(limit: Int64) throws {
        self.limit = limit
        // 15 + 16: a 32 KiB window, gzip header and trailer required (not raw deflate or zlib).
        let status = inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw GzipError.malformed(offset: 0, message: "inflateInit2 failed (\(status))") }
        initialized = true
    }

    deinit {
        if initialized { inflateEnd(&stream) }
    }

    /// Inflates `input`, handing every piece of output to `sink`; throws ``GzipError`` on a
    /// corrupt stream or once the output passes ``limit``.
    public func feed(_ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress, input.count > 0 else { return }
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        defer { stream.next_in = nil; stream.avail_in = 0 }
        while stream.avail_in > 0 {
            if finishedMember {
                // Another member follows the previous one's trailer.
                guard inflateReset(&stream) == Z_OK else {
                    throw GzipError.malformed(offset: consumed, message: "could not start the next gzip member")
                }
                finishedMember = false
            }
            let before = stream.avail_in
            let status = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            consumed += Int64(before - stream.avail_in)
            let count = output.count - Int(stream.avail_out)
            produced += Int64(count)
            if produced > limit { throw GzipError.tooLarge(limit: limit) }
            if count > 0 {
                try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                finishedMember = true
            case Z_BUF_ERROR:
                if stream.avail_in == 0 { return }
                throw GzipError.malformed(offset: consumed, message: "inflate made no progress")
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "inflate error \(status)"
                throw GzipError.malformed(offset: consumed, message: message)
            }
        }
    }

    /// Checks that the stream ended with a complete member (its CRC and length verified).
    public func finish() throws {
        guard finishedMember else {
            throw GzipError.malformed(offset: consumed, message: "the gzip stream ends before its trailer")
        }
    }

    /// Inflates a whole gzip body held in memory.
    public static func inflate(_ data: Data, limit: Int64) throws -> Data {
        let inflater = try GzipInflater(limit: limit)
        var out = Data()
        out.reserveCapacity(min(Int(limit), data.count * 4))
        try data.withUnsafeBytes { raw in
            try inflater.feed(raw) { out.append(contentsOf: $0) }
        }
        try inflater.finish()
        return out
    }
}

/// Why a gzip body could not be inflated.
public enum GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stream is corrupt; `offset` is the input byte where inflating stopped.
    case malformed(offset: Int64, message: String)
    /// The output passed `limit` bytes.
    case tooLarge(limit: Int64)

    public var description: String {
        switch self {
        case .malformed(let offset, let message): return "bad gzip data at input byte \(offset): \(message)"
        case .tooLarge(let limit): return "the body inflates to more than \(limit) bytes"
        }
    }
}

/// gzip compression, for clients of the server (the load generator, tests, the demo).
public enum GzipDeflater {
    /// Compresses `data` into one gzip member at `level` (1 fastest … 9 smallest).
    public static func compress(_ data: Data, level: Int32 = 6) throws -> Data {
        var stream = z_stream()
        // 15 + 16: write a gzip header and trailer; memLevel 8 is zlib's default.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw GzipError.malformed(offset: 0, message: "deflateInit2 failed")
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count))) + 32
        var out = [UInt8](repeating: 0, count: bound)
        let status = data.withUnsafeBytes { input -> Int32 in
            out.withUnsafeMutableBufferPointer { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = uInt(output.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw GzipError.malformed(offset: 0, message: "deflate failed (\(status))") }
        return Data(out[0..<Int(stream.total_out)])
    }
}
