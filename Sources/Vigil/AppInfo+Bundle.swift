import Foundation
import VigilCore

extension AppInfo {
    /// The running app as its main bundle's Info.plist names it: `CFBundleIdentifier`,
    /// `CFBundleShortVersionString` and `CFBundleVersion`.
    ///
    /// A process without those keys (a command-line tool, any Linux process) gets its
    /// executable's name as the id and `0` for a missing version or build. Reads the bundle's
    /// already-loaded dictionary: cheap, any thread.
    public static var main: AppInfo { AppInfo(bundle: Bundle.main) }

    /// The app that `bundle`'s Info.plist describes, with the fallbacks of ``main``.
    public init(bundle: Bundle) {
        func value(_ key: String) -> String? {
            guard let text = bundle.object(forInfoDictionaryKey: key) as? String else { return nil }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        let id = bundle.bundleIdentifier.flatMap { $0.isEmpty ? nil : $0 } ?? ProcessInfo.processInfo.processName
        self.init(id: id, version: value("CFBundleShortVersionString") ?? "0", build: value("CFBundleVersion") ?? "0")
    }
}
