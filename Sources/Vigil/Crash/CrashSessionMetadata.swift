import Foundation
import VigilCore

/// What the crash handler is given at install and writes verbatim into every raw report (the
/// `meta` record): who was running, so that the next launch can build the `crash` event of the
/// session that died. JSON; at most 32 KiB (the tags are what could make it large).
struct CrashSessionMetadata: Codable, Sendable, Hashable {
    /// The layout of this blob.
    var version: Int = 1
    var session: UUID
    var app: AppInfo
    var device: DeviceInfo
    var context: EventContext
    var tags: [String: String]
    /// When the session started (wall clock).
    var started: Date

    func encoded() throws -> Data {
        try EventJSON.makeEncoder().encode(self)
    }

    static func decode(_ data: Data) throws -> CrashSessionMetadata {
        try EventJSON.makeDecoder().decode(CrashSessionMetadata.self, from: data)
    }
}
