import Foundation
import Synchronization
import VigilCore

/// Checks ingest keys and the admin token, and issues dashboard sessions.
///
/// Keys are compared by their SHA-256 only. Lookups are cached for `cacheSeconds` (so a
/// rotated key stops working within that time) and unknown keys for a shorter while, so a
/// client hammering with a wrong key costs no database work. Sessions are stateless cookies
/// (`expiry.mac`) signed with a secret kept in the database, so every server on the same
/// database accepts them.
public final class Authenticator: Sendable {
    private let store: ServerStore
    private let adminTokenHash: String
    private let sessionSecret: String
    private let clock: any VigilClock
    private let cacheSeconds: Double
    private let cache = Mutex<[String: CacheEntry]>([:])

    private struct CacheEntry {
        var project: Project?
        var expires: MonotonicInstant
    }

    /// The dashboard's session cookie name.
    public static let sessionCookie = "vigil_session"

    /// An authenticator for `store`; `adminTokenHash` is the SHA-256 hex of the admin token.
    public init(store: ServerStore, adminTokenHash: String, sessionSecret: String,
                clock: any VigilClock = SystemClock(), cacheSeconds: Double = 30) {
        self.store = store
        self.adminTokenHash = adminTokenHash
        self.sessionSecret = sessionSecret
        self.clock = clock
        self.cacheSeconds = cacheSeconds
    }

    /// The ingest key of a request: `Authorization: Bearer …` or `X-Vigil-Key`.
    public static func ingestKey(of request: HTTPRequest) -> String? {
        if let key = request.header("x-vigil-key")?.trimmingCharacters(in: .whitespaces), !key.isEmpty { return key }
        return request.bearerToken
    }

    /// The project owning `key`, or nil for an unknown key.
    public func project(forIngestKey key: String) throws -> Project? {
        let hash = SecretToken.hash(key)
        let now = clock.monotonicNow()
        if let cached = cache.withLock({ $0[hash] }), cached.expires > now { return cached.project }
        let project = try store.project(ingestKeyHash: hash)
        let lifetime = project == nil ? min(5, cacheSeconds) : cacheSeconds
        cache.withLock { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[hash] = CacheEntry(project: project, expires: now.advanced(byMilliseconds: lifetime * 1000))
        }
        return project
    }

    /// Whether `token` is the admin token.
    public func isAdminToken(_ token: String) -> Bool {
        SecretToken.constantTimeEqual(SecretToken.hash(token), adminTokenHash)
    }

    /// Whether the request carries the admin token (bearer) or a valid session cookie.
    public func isAdmin(_ request: HTTPRequest) -> Bool {
        if let token = request.bearerToken, isAdminToken(token) { return true }
        if let session = request.cookie(Self.sessionCookie), isValidSession(session) { return true }
        return false
    }

    /// Who an admin request is, for audits: `admin token` (the bearer token) or `dashboard
    /// session 1a2b3c4d` (the first 8 hex digits of the session's signature, so the entries of
    /// one login read alike without the cookie being recoverable from them); nil for no admin.
    public func actor(of request: HTTPRequest) -> String? {
        if let token = request.bearerToken, isAdminToken(token) { return "admin token" }
        if let session = request.cookie(Self.sessionCookie), isValidSession(session) {
            return "dashboard session " + String(session.split(separator: ".").last?.prefix(8) ?? "")
        }
        return nil
    }

    /// The CSRF token of a dashboard session: a keyed hash of the session cookie, put in every
    /// dashboard form and checked on every dashboard POST. A page of another site can make the
    /// browser send the cookie (were SameSite not honoured) but cannot read this token.
    public func csrfToken(forSession session: String) -> String {
        String(mac("csrf:" + session).prefix(32))
    }

    /// Whether a dashboard POST carries a valid session and that session's CSRF token, and (when
    /// the browser sent one) an `Origin` naming this very host.
    public func isValidDashboardPost(_ request: HTTPRequest, csrf: String?) -> Bool {
        guard let session = request.cookie(Self.sessionCookie), isValidSession(session), let csrf,
              SecretToken.constantTimeEqual(csrf, csrfToken(forSession: session)) else { return false }
        if let origin = request.header("origin"), let host = request.header("host") {
            return origin == "http://" + host || origin == "https://" + host
        }
        return true
    }

    /// A session cookie value valid for `seconds`.
    public func makeSession(seconds: Int = 12 * 3600) -> String {
        let expiry = Int64(clock.wallNow().timeIntervalSince1970) + Int64(seconds)
        return "\(expiry).\(mac(String(expiry)))"
    }

    /// Whether `value` is an unexpired session this server (or one sharing its database) issued.
    public func isValidSession(_ value: String) -> Bool {
        let parts = value.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let expiry = Int64(parts[0]), parts[0].allSatisfy(\.isNumber),
              expiry > Int64(clock.wallNow().timeIntervalSince1970) else { return false }
        return SecretToken.constantTimeEqual(String(parts[1]), mac(String(expiry)))
    }

    /// A keyed hash, `SHA-256(secret ‖ SHA-256(secret ‖ message))`, which length extension cannot forge.
    private func mac(_ message: String) -> String {
        let inner = SecretToken.sha256(Data((sessionSecret + ":" + message).utf8))
        return SecretToken.hex(SecretToken.sha256(Data(sessionSecret.utf8) + Data(":".utf8) + Data(inner)))
    }
}
