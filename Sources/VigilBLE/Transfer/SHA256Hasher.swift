#if canImport(CryptoKit)
import CryptoKit
#else
import CCrypto
#endif

/// An incremental SHA-256: the platform's crypto (CryptoKit on Apple platforms, OpenSSL's
/// libcrypto on Linux).
///
/// A reference type because the Linux backend owns a C context (freed in `deinit`); a transfer
/// keeps one hasher alive across reconnects so that resuming does not re-hash what arrived.
/// Not thread-safe. Cost: about 2 CPU cycles per byte on modern hardware.
public final class SHA256Hasher {
    /// Digest length in bytes.
    public static let digestLength = 32

    #if canImport(CryptoKit)
    private var state = SHA256()
    #else
    private let context: OpaquePointer
    #endif
    private var finished = false

    /// A fresh hasher.
    public init() {
        #if !canImport(CryptoKit)
        // EVP_MD_CTX_new only fails when memory is exhausted, where nothing else could continue.
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        self.context = context
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        #endif
    }

    deinit {
        #if !canImport(CryptoKit)
        EVP_MD_CTX_free(context)
        #endif
    }

    /// Adds `bytes` to the hashed stream. Calling it after ``finalize()`` is a programmer error.
    public func update(_ bytes: ArraySlice<UInt8>) {
        precondition(!finished, "SHA256Hasher.update after finalize")
        bytes.withUnsafeBytes { raw in
            guard raw.count > 0 else { return }
            #if canImport(CryptoKit)
            state.update(bufferPointer: raw)
            #else
            EVP_DigestUpdate(context, raw.baseAddress, raw.count)
            #endif
        }
    }

    /// Adds `bytes` to the hashed stream.
    public func update(_ bytes: [UInt8]) { update(bytes[...]) }

    /// The 32-byte digest of everything added; the hasher cannot be used afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "SHA256Hasher.finalize called twice")
        finished = true
        #if canImport(CryptoKit)
        return Array(state.finalize())
        #else
        var digest = [UInt8](repeating: 0, count: SHA256Hasher.digestLength)
        var length: UInt32 = 0
        digest.withUnsafeMutableBufferPointer { buffer in
            _ = EVP_DigestFinal_ex(context, buffer.baseAddress, &length)
        }
        return digest
        #endif
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
