#if canImport(CryptoKit)
import CryptoKit
#else
import CCrypto
#endif

/// HMAC-SHA256 (RFC 2104) from the platform's crypto — CryptoKit on Apple platforms, OpenSSL's
/// libcrypto on Linux — and the constant-time comparison every tag check goes through.
///
/// The only platform-specific part of command authentication: HKDF (``HKDFSHA256``) and the
/// frame tags (``AuthenticatedFrame``) are built on ``authenticationCode(for:key:)`` in shared
/// code. Thread-safe (no state). Cost: two SHA-256 passes over the message plus four blocks.
public enum HMACSHA256 {
    /// Length of a full code, in bytes.
    public static let codeLength = 32

    /// The 32-byte HMAC-SHA256 of `message` under `key` (any length; longer than 64 bytes is
    /// hashed first, as RFC 2104 says).
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        #else
        var code = [UInt8](repeating: 0, count: codeLength)
        var length: UInt32 = 0
        // A zero-length key still needs a valid pointer: OpenSSL reads a NULL key as "reuse the
        // previous one" in its context-based API.
        let keyBytes = key.isEmpty ? [0] : key
        let result = keyBytes.withUnsafeBytes { keyBuffer in
            message.withUnsafeBytes { messageBuffer in
                code.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(key.count), messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self),
                         messageBuffer.count, out.baseAddress, &length)
                }
            }
        }
        // HMAC only fails when memory is exhausted, where nothing else could continue.
        precondition(result != nil && length == UInt32(codeLength), "HMAC-SHA256 failed in libcrypto")
        return code
        #endif
    }

    /// Whether `a` and `b` hold the same bytes, in time that depends only on their lengths (never
    /// on where they first differ), so that a forger learns nothing from how fast a tag is refused.
    public static func constantTimeEqual(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
