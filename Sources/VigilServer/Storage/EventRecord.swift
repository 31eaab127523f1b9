/// One event as the `apm_event` table holds it: the envelope's fields as columns, the rest as
/// JSON text.
public struct EventRecord: Sendable, Hashable {
    /// The event's id (an uppercase UUID).
    public var id: String
    /// The event type's raw value.
    public var type: String
    /// When it happened, in milliseconds since 1970.
    public var occurredAt: Int64
    /// Bundle identifier of the app.
    public var appID: String
    /// Marketing version of the app.
    public var appVersion: String
    /// Build number of the app.
    public var appBuild: String
    /// Operating system name.
    public var os: String
    /// Operating system version.
    public var osVersion: String
    /// Hardware model of the device.
    public var deviceModel: String
    /// The page the app showed.
    public var page: String?
    /// The app run.
    public var sessionID: String
    /// The event's main duration: a hang's or frozen frame's length, a request's total, a
    /// launch's TTID, a span's length, in milliseconds.
    public var durationMs: Double?
    /// `tags` as a JSON object.
    public var tagsJSON: String
    /// `payload` as a JSON object.
    public var payloadJSON: String
    /// `images` as a JSON array, when present.
    public var imagesJSON: String?
    /// `context` as a JSON object.
    public var contextJSON: String?
    /// Who the event counts as for distinct users: its `user`, else its `install`, else nil
    /// (then the session counts as the user).
    public var userKey: String?
    /// A frame window's counts, when the ingest decoded them (nil: read from the payload
    /// when the row is written, see ``FrameCounts``).
    public var frameCounts: FrameCounts?

    /// Creates a record.
    public init(id: String, type: String, occurredAt: Int64, appID: String, appVersion: String, appBuild: String,
                os: String, osVersion: String, deviceModel: String, page: String?, sessionID: String,
                durationMs: Double?, tagsJSON: String, payloadJSON: String, imagesJSON: String?, contextJSON: String?,
                userKey: String? = nil, frameCounts: FrameCounts? = nil) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.appID = appID
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.os = os
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.page = page
        self.sessionID = sessionID
        self.durationMs = durationMs
        self.tagsJSON = tagsJSON
        self.payloadJSON = payloadJSON
        self.imagesJSON = imagesJSON
        self.contextJSON = contextJSON
        self.userKey = userKey
        self.frameCounts = frameCounts
    }
}
