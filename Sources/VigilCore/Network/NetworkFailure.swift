/// A transport failure of a request (no HTTP response, or a broken one), as an error domain and
/// code so that equal failures group together on the server.
public struct NetworkFailure: Sendable, Hashable, CustomStringConvertible {
    /// Error domain, e.g. `NSURLErrorDomain`.
    public var domain: String
    /// Error code in that domain, e.g. -1001.
    public var code: Int

    /// A failure with `domain` and `code`.
    public init(domain: String, code: Int) {
        self.domain = domain
        self.code = code
    }

    /// The caller cancelled the request.
    public var isCancellation: Bool { domain == Self.urlErrorDomain && code == -999 }

    /// `NSURLErrorDomain`, spelled out so this file needs no Foundation networking.
    public static let urlErrorDomain = "NSURLErrorDomain"

    /// `<domain> <code>`, followed by the name of a well-known URL error code: the `error` field
    /// of a `network` event, e.g. `NSURLErrorDomain -1001 timedOut`.
    public var description: String {
        let base = "\(domain) \(code)"
        guard domain == Self.urlErrorDomain, let name = Self.urlErrorNames[code] else { return base }
        return base + " " + name
    }

    private static let urlErrorNames: [Int: String] = [
        -999: "cancelled", -1000: "badURL", -1001: "timedOut", -1002: "unsupportedURL", -1003: "cannotFindHost",
        -1004: "cannotConnectToHost", -1005: "networkConnectionLost", -1006: "dnsLookupFailed",
        -1007: "httpTooManyRedirects", -1008: "resourceUnavailable", -1009: "notConnectedToInternet",
        -1011: "badServerResponse", -1012: "userCancelledAuthentication", -1017: "cannotParseResponse",
        -1020: "dataNotAllowed", -1200: "secureConnectionFailed", -1201: "serverCertificateHasBadDate",
        -1202: "serverCertificateUntrusted", -1206: "clientCertificateRequired",
    ]
}
