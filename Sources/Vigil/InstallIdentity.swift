import Foundation
import VigilCore

/// The install id: a random UUID kept in `<data directory>/install-id`, made on first use and
/// kept until the app resets it (``Vigil/resetInstallID()``) or the data directory is removed
/// (an uninstall). Never derived from hardware, so it identifies an install, not a person or a
/// device. Reads and writes one small file; callers run it off the main thread.
struct InstallIdentity {
    let url: URL

    init(dataDirectory: URL) {
        url = dataDirectory.appendingPathComponent("install-id")
    }

    /// The stored id, or a new one (stored) when there is none or it is unreadable; nil only
    /// when the disk refuses, and then events carry no install id.
    func current() -> UUID? {
        if let data = try? Data(contentsOf: url), data.count <= 64,
           let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
           let id = UUID(uuidString: text) {
            return id
        }
        return reset()
    }

    /// Replaces the id with a new random one; nil when the disk refused.
    @discardableResult
    func reset() -> UUID? {
        let id = UUID()
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((id.uuidString + "\n").utf8).write(to: url, options: .atomic)
            return id
        } catch {
            return nil
        }
    }
}
