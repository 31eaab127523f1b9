import CCrypto
import Foundation

/// Random secrets (ingest keys, the admin token, dashboard sessions) and the SHA-256 hashes
/// under which the server stores them: the database never holds a usable key.
public enum SecretToken {
    /// A new secret: `prefix` followed by 32 random bytes from OpenSSL's CSPRNG in lowercase hex.
    public static func generate(prefix: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else {
            // Never silently fall back to a weak source.
            preconditionFailure("OpenSSL RAND_bytes failed: no secure randomness available")
        }
        return prefix + hex(bytes)
    }

    /// The SHA-256 of `secret`'s UTF-8 bytes, as 64 lowercase hex digits.
    public static func hash(_ secret: String) -> String {
        hex(sha256(Data(secret.utf8)))
    }

    /// SHA-256 of `data`.
    public static func sha256(_ data: Data) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1, "OpenSSL EVP_Digest(SHA-256) failed")
        return Array(digest.prefix(Int(length)))
    }

    /// Compares two strings in time that depends only on their lengths.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// Lowercase hex of `bytes`.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
