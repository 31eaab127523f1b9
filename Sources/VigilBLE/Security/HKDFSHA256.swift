/// HKDF with HMAC-SHA256 (RFC 5869): extract a pseudorandom key from input keying material and
/// a salt, then expand it with a context string into as many bytes as needed.
///
/// Built on ``HMACSHA256`` in shared code, so it is the same on every platform; the RFC's test
/// vectors pin it in the tests. Thread-safe (no state). Cost: one HMAC per 32 output bytes plus one.
public enum HKDFSHA256 {
    /// The longest output RFC 5869 allows: 255 blocks of 32 bytes.
    public static let maxOutputLength = 255 * HMACSHA256.codeLength

    /// HKDF-Extract: the 32-byte pseudorandom key. An empty salt stands for 32 zero bytes (the
    /// same HMAC key).
    public static func extract(salt: [UInt8], inputKeyingMaterial: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(for: inputKeyingMaterial, key: salt)
    }

    /// HKDF-Expand: `length` bytes (0…``maxOutputLength``; more is a programmer error) from a
    /// pseudorandom key and `info`.
    public static func expand(pseudorandomKey: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition((0...maxOutputLength).contains(length), "HKDF output of \(length) bytes")
        var output: [UInt8] = []
        output.reserveCapacity(length)
        var block: [UInt8] = []
        var index: UInt8 = 1
        while output.count < length {
            block = HMACSHA256.authenticationCode(for: block + info + [index], key: pseudorandomKey)
            output += block.prefix(length - output.count)
            index &+= 1
        }
        return output
    }

    /// Extract then expand.
    public static func deriveKey(inputKeyingMaterial: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        expand(pseudorandomKey: extract(salt: salt, inputKeyingMaterial: inputKeyingMaterial), info: info, length: length)
    }
}
