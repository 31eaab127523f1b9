#if os(Linux)
import Foundation

/// Reads small pseudo-files under `/proc` and `/sys` with a size bound, for the Linux adapters.
///
/// Bounded in memory (`limit` bytes; a longer file is reported as too large rather than read
/// half) and in time (`O_NONBLOCK`, a fixed number of `read` calls). Never throws into the
/// caller: every failure is a ``Failure`` value the adapter counts and skips.
public struct ProcFileReader: Sendable {
    /// Why a file could not be read.
    public enum Failure: Error, Sendable, Hashable {
        /// `open` failed (missing file, no permission); the errno value.
        case unavailable(path: String, errno: Int32)
        /// A `read` failed; the errno value.
        case readFailed(path: String, errno: Int32)
        /// The file is longer than the bound.
        case tooLarge(path: String, limit: Int)
    }

    /// Largest file accepted, in bytes.
    public var limit: Int

    /// A reader accepting files up to `limit` bytes (default 256 KiB: `/proc/self/status` is
    /// about 1.5 KiB, `smaps_rollup` under 1 KiB, `stat` under 512 bytes).
    public init(limit: Int = 256 * 1024) {
        self.limit = max(1, limit)
    }

    /// The file's bytes, or why they could not be read.
    public func read(_ path: String) -> Result<[UInt8], Failure> {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.unavailable(path: path, errno: errno)) }
        defer { close(descriptor) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        // /proc files are produced in page-sized reads; limit/4096 + 2 reads bound the loop.
        for _ in 0...(limit / 4096 + 1) {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.readFailed(path: path, errno: errno))
            }
            if count == 0 { return .success(bytes) }
            if bytes.count + count > limit { return .failure(.tooLarge(path: path, limit: limit)) }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return .failure(.tooLarge(path: path, limit: limit))
    }
}
#endif
