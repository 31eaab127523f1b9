/// The app that produced an event: bundle identifier, marketing version and build number.
public struct AppInfo: Codable, Sendable, Hashable {
    /// Bundle identifier or package name, e.g. `com.example.shop`.
    public var id: String
    /// Marketing version, e.g. `3.2.0`.
    public var version: String
    /// Build number, e.g. `412`.
    public var build: String

    public init(id: String, version: String, build: String) {
        self.id = id
        self.version = version
        self.build = build
    }
}
