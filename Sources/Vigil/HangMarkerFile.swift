import Foundation
import VigilCore

/// The "hang in progress" marker on disk: written when a hang begins, rewritten while it lasts,
/// deleted when it ends. A marker found at the next start means the process died inside the
/// hang; it becomes a `fatal` hang event of the session that died.
///
/// The file holds the detector's ``HangMarker`` plus what is needed to report it later: the
/// session id and the images its stacks refer to (addresses from a dead process mean nothing
/// without them). Written atomically (temporary file and rename) from the monitoring queue.
struct HangMarkerFile {
    /// What is stored.
    struct Record: Codable, Sendable {
        var session: UUID
        var marker: HangMarker
        var images: [ImageInfo]
        var context: EventContext
    }

    let url: URL

    init(directory: URL) {
        url = directory.appendingPathComponent("hang-in-progress.json")
    }

    /// Writes `record`, replacing any previous marker; false when the disk refused.
    @discardableResult
    func write(_ record: Record) -> Bool {
        guard let data = try? EventJSON.makeEncoder().encode(record) else { return false }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
            return true
        } catch {
            return false
        }
    }

    /// Deletes the marker, if any.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// The marker a previous process left behind, if any (an unreadable one is deleted).
    func leftover() -> Record? {
        guard let data = try? Data(contentsOf: url, options: .mappedIfSafe) else { return nil }
        guard data.count < 4 * 1024 * 1024,
              let record = try? EventJSON.makeDecoder().decode(Record.self, from: data) else {
            remove()
            return nil
        }
        return record
    }
}
