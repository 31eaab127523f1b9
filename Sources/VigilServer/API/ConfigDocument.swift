import Foundation
import VigilCore

/// Checks a remote-configuration document before `PUT /api/v1/config` stores it, with the same
/// type the SDK reads it with (`RemoteConfig`): types first (a failure names the field), then
/// ranges. A valid document is stored exactly as sent, so fields a newer SDK knows survive an
/// older server.
public enum ConfigDocument {
    /// What a project that never stored a document is served: every field at its default.
    public static let defaultDocument = "{}"

    /// The document to store, or the `400` to answer.
    public static func validate(_ body: Data) -> Result<String, HTTPError> {
        let config: RemoteConfig
        do {
            config = try RemoteConfig.parse(body)
        } catch {
            return .failure(invalid([error]))
        }
        let issues = config.validationIssues()
        guard issues.isEmpty else { return .failure(invalid(issues)) }
        return .success(String(decoding: body, as: UTF8.self))
    }

    /// `400 invalid_config` whose reason is the first problem; every problem is listed in
    /// `issues` by ``issuesBody(_:)``.
    static func invalid(_ issues: [RemoteConfigError]) -> HTTPError {
        HTTPError(status: 400, code: "invalid_config", reason: issues.first.map(String.init(describing:)) ?? "invalid document",
                  extra: issues.map { ($0.field, $0.reason) })
    }
}
