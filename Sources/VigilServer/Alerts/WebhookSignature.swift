import Foundation

/// The signature of a webhook delivery: `Vigil-Signature: t=<unix seconds>,v1=<hex>`, where the
/// hex is HMAC-SHA256 keyed with the rule's secret (its UTF-8 bytes) over the bytes
/// `"<t>." + body`. Receivers recompute it, compare in constant time, and refuse a `t` too far
/// from their clock (replays).
///
/// HMAC is built from OpenSSL's SHA-256 as RFC 2104 defines it. Threading: pure functions.
public enum WebhookSignature {
    /// The header carrying the signature.
    public static let header = "Vigil-Signature"

    /// The header value for `body` sent at `timestamp` (seconds since 1970).
    public static func value(body: Data, secret: String, timestamp: Int64) -> String {
        "t=\(timestamp),v1=" + SecretToken.hex(hmacSHA256(key: Data(secret.utf8), message: signedBytes(body: body, timestamp: timestamp)))
    }

    /// What is signed: `"<t>."` followed by the body.
    public static func signedBytes(body: Data, timestamp: Int64) -> Data {
        Data("\(timestamp).".utf8) + body
    }

    /// Whether `header` is a valid signature of `body` with `secret`, made within
    /// `toleranceSeconds` of `now`.
    public static func verify(header: String, body: Data, secret: String, now: Date, toleranceSeconds: Int64 = 300) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, abs(Int64(now.timeIntervalSince1970) - timestamp) <= toleranceSeconds else { return false }
        let expected = value(body: body, secret: secret, timestamp: timestamp).split(separator: "=").last.map(String.init) ?? ""
        return signatures.contains { SecretToken.constantTimeEqual($0, expected) }
    }

    /// HMAC-SHA256 (RFC 2104): `H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ m))` with 64-byte blocks; a key
    /// longer than a block is hashed first.
    public static func hmacSHA256(key: Data, message: Data) -> [UInt8] {
        var block = key.count > 64 ? SecretToken.sha256(key) : Array(key)
        block += Array(repeating: 0, count: 64 - block.count)
        let inner = SecretToken.sha256(Data(block.map { $0 ^ 0x36 }) + message)
        return SecretToken.sha256(Data(block.map { $0 ^ 0x5C }) + Data(inner))
    }
}
