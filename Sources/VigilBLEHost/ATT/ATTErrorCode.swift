/// ATT error codes (Core spec Vol 3 Part F 3.4.1.1) as a typed value; codes without a name
/// (application 0x80–0x9F, profile 0xE0–0xFF, reserved) keep their number.
public enum ATTErrorCode: Sendable, Hashable, CustomStringConvertible {
    case invalidHandle, readNotPermitted, writeNotPermitted, invalidPDU, insufficientAuthentication
    case requestNotSupported, invalidOffset, insufficientAuthorization, prepareQueueFull
    case attributeNotFound, attributeNotLong, insufficientEncryptionKeySize, invalidAttributeValueLength
    case unlikelyError, insufficientEncryption, unsupportedGroupType, insufficientResources
    case databaseOutOfSync, valueNotAllowed
    /// An application error (0x80–0x9F), defined by the service.
    case application(UInt8)
    /// A common profile or service error (0xE0–0xFF), e.g. 0xFD CCCD improperly configured.
    case profile(UInt8)
    /// A code reserved by the spec.
    case reserved(UInt8)

    private static let named: [ATTErrorCode] = [
        .invalidHandle, .readNotPermitted, .writeNotPermitted, .invalidPDU, .insufficientAuthentication,
        .requestNotSupported, .invalidOffset, .insufficientAuthorization, .prepareQueueFull,
        .attributeNotFound, .attributeNotLong, .insufficientEncryptionKeySize, .invalidAttributeValueLength,
        .unlikelyError, .insufficientEncryption, .unsupportedGroupType, .insufficientResources,
        .databaseOutOfSync, .valueNotAllowed,
    ]

    /// The code for a wire value.
    public init(rawValue: UInt8) {
        switch rawValue {
        case 0x01...0x13: self = Self.named[Int(rawValue) - 1]
        case 0x80...0x9F: self = .application(rawValue)
        case 0xE0...0xFF: self = .profile(rawValue)
        default: self = .reserved(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: UInt8 {
        switch self {
        case .application(let v), .profile(let v), .reserved(let v): return v
        default: return UInt8((Self.named.firstIndex(of: self) ?? 0x0D) + 1)
        }
    }

    public var description: String {
        switch self {
        case .invalidHandle: return "invalid handle"
        case .readNotPermitted: return "read not permitted"
        case .writeNotPermitted: return "write not permitted"
        case .invalidPDU: return "invalid PDU"
        case .insufficientAuthentication: return "insufficient authentication"
        case .requestNotSupported: return "request not supported"
        case .invalidOffset: return "invalid offset"
        case .insufficientAuthorization: return "insufficient authorization"
        case .prepareQueueFull: return "prepare queue full"
        case .attributeNotFound: return "attribute not found"
        case .attributeNotLong: return "attribute not long"
        case .insufficientEncryptionKeySize: return "insufficient encryption key size"
        case .invalidAttributeValueLength: return "invalid attribute value length"
        case .unlikelyError: return "unlikely error"
        case .insufficientEncryption: return "insufficient encryption"
        case .unsupportedGroupType: return "unsupported group type"
        case .insufficientResources: return "insufficient resources"
        case .databaseOutOfSync: return "database out of sync"
        case .valueNotAllowed: return "value not allowed"
        case .application(let v): return "application error 0x\(String(v, radix: 16))"
        case .profile(let v): return "profile error 0x\(String(v, radix: 16))"
        case .reserved(let v): return "reserved error 0x\(String(v, radix: 16))"
        }
    }
}

/// Why an ATT request failed.
public enum ATTClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an Error Response.
    case attribute(ATTErrorCode, handle: UInt16, request: UInt8)
    /// No response within the transaction timeout (30 s); the bearer is closed and the link dropped.
    case timeout(request: UInt8)
    /// The link went down (or the bearer was closed) before the response arrived.
    case disconnected
    /// The server answered with something that is not a valid response to the request.
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .attribute(let code, let handle, let request):
            return "ATT error: \(code) (handle 0x\(String(handle, radix: 16)), request 0x\(String(request, radix: 16)))"
        case .timeout(let request): return "ATT transaction timed out (request 0x\(String(request, radix: 16)))"
        case .disconnected: return "ATT bearer closed"
        case .malformedResponse(let text): return "malformed ATT response: \(text)"
        }
    }

    /// The ATT error code as a number for ``VigilBLE/TransportFailure`` (0 when not an ATT error).
    public var code: Int {
        if case .attribute(let code, _, _) = self { return Int(code.rawValue) }
        return 0
    }
}
