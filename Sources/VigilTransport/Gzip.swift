import CZlib
import Foundation

/// gzip compression and decompression with zlib (RFC 1952 framing).
public enum Gzip {
    /// Compresses `data` into a gzip member. Cost: one `deflate` pass; output buffer sized by
    /// `deflateBound`, so memory is about the input size.
    public static func compress(_ data: Data, level: Int32 = 6) throws(GzipError) -> Data {
        var stream = z_stream()
        // windowBits 15 + 16 selects the gzip wrapper.
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw GzipError(operation: "deflateInit2", code: status) }
        defer { deflateEnd(&stream) }
        guard data.count < Int(UInt32.max) else { throw GzipError(operation: "deflate", code: Z_BUF_ERROR) }
        let bound = Int(deflateBound(&stream, uLong(data.count))) + 32
        var output = Data(count: bound)
        var input = data
        let result: Int32 = input.withUnsafeMutableBytes { inputRaw in
            output.withUnsafeMutableBytes { outputRaw in
                stream.next_in = inputRaw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(inputRaw.count)
                stream.next_out = outputRaw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(outputRaw.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { throw GzipError(operation: "deflate", code: result) }
        output.count = Int(stream.total_out)
        return output
    }

    /// Decompresses a gzip (or zlib) stream, refusing output larger than `limit` bytes so that
    /// a small hostile body cannot expand without bound.
    public static func decompress(_ data: Data, limit: Int) throws(GzipError) -> Data {
        var stream = z_stream()
        // windowBits 15 + 32: detect gzip or zlib framing.
        let status = inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw GzipError(operation: "inflateInit2", code: status) }
        defer { inflateEnd(&stream) }
        guard data.count < Int(UInt32.max) else { throw GzipError(operation: "inflate", code: Z_BUF_ERROR) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = data
        var failure: GzipError?
        input.withUnsafeMutableBytes { inputRaw in
            stream.next_in = inputRaw.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(inputRaw.count)
            while true {
                let (code, produced) = chunk.withUnsafeMutableBytes { chunkRaw -> (Int32, Int) in
                    stream.next_out = chunkRaw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(chunkRaw.count)
                    let code = inflate(&stream, Z_NO_FLUSH)
                    return (code, chunkRaw.count - Int(stream.avail_out))
                }
                if output.count + produced > limit {
                    failure = GzipError(operation: "inflate", code: Z_BUF_ERROR, limitExceeded: true)
                    return
                }
                output.append(contentsOf: chunk[0..<produced])
                if code == Z_STREAM_END { return }
                if code != Z_OK {
                    failure = GzipError(operation: "inflate", code: code)
                    return
                }
                if produced == 0 && stream.avail_in == 0 {
                    // Input ended before the stream did: truncated.
                    failure = GzipError(operation: "inflate", code: Z_DATA_ERROR)
                    return
                }
            }
        }
        if let failure { throw failure }
        return output
    }
}

/// A zlib failure, with the call and zlib's status code.
public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The zlib call that failed.
    public var operation: String
    /// zlib's status (`Z_DATA_ERROR` = -3 for corrupt input).
    public var code: Int32
    /// Whether decompression stopped at the caller's output limit.
    public var limitExceeded: Bool

    /// An error for `operation` with zlib status `code`.
    public init(operation: String, code: Int32, limitExceeded: Bool = false) {
        self.operation = operation
        self.code = code
        self.limitExceeded = limitExceeded
    }

    public var description: String {
        limitExceeded ? "\(operation): output over the size limit" : "\(operation) failed with zlib status \(code)"
    }
}
