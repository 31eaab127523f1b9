import Foundation

/// What the launch after a session knows about how that session ended, besides its marker:
/// whether a crash report of it was recovered, whether it left a hang-in-progress marker, and
/// what runs now (an app or OS version different from the marker's means an upgrade came in
/// between, and the system ends the old process for it).
public struct SessionEvidence: Sendable, Hashable {
    /// A crash report of the session was recovered (or is being recovered).
    public var crashReported: Bool
    /// The session left its hang-in-progress marker: it died inside a main-thread hang.
    public var diedInHang: Bool
    /// The release running now.
    public var currentApp: AppInfo
    /// The OS version running now.
    public var currentOSVersion: String

    public init(crashReported: Bool = false, diedInHang: Bool = false, currentApp: AppInfo, currentOSVersion: String) {
        self.crashReported = crashReported
        self.diedInHang = diedInHang
        self.currentApp = currentApp
        self.currentOSVersion = currentOSVersion
    }
}
