import Foundation

/// How a route receives its request body: the size limits and where the bytes are kept.
///
/// Limits are checked while the body arrives: a `Content-Length` over ``maxBytes`` is refused
/// before a byte is read, a chunked body as soon as it passes the limit, and a gzip body as soon
/// as its inflated size passes ``maxDecodedBytes`` (so a gzip bomb costs at most that much memory).
public struct BodyPolicy: Sendable, Hashable {
    /// Where a body is kept while it arrives.
    public enum Storage: Sendable, Hashable {
        /// In memory; for bodies of a few megabytes.
        case memory
        /// Spooled to a temporary file in `directory`; for uploads too large to hold.
        case temporaryFile(directory: String)
    }

    /// Largest body accepted as sent (compressed when gzip), in bytes.
    public var maxBytes: Int64
    /// Largest body accepted after `Content-Encoding: gzip` is undone, in bytes.
    public var maxDecodedBytes: Int64
    /// Whether `Content-Encoding: gzip` is accepted (otherwise answered 415).
    public var acceptsGzip: Bool
    /// Where the body is kept.
    public var storage: Storage

    /// Creates a policy.
    public init(maxBytes: Int64, maxDecodedBytes: Int64? = nil, acceptsGzip: Bool = true, storage: Storage = .memory) {
        self.maxBytes = maxBytes
        self.maxDecodedBytes = maxDecodedBytes ?? maxBytes
        self.acceptsGzip = acceptsGzip
        self.storage = storage
    }

    /// For requests that carry no body (GET): anything over 64 KiB is refused.
    public static let small = BodyPolicy(maxBytes: 64 * 1024, acceptsGzip: false)
}
