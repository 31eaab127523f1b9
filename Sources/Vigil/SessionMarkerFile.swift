import Foundation
import VigilCore

/// The session markers on disk, in `<data directory>/sessions`: one `<session>.json` per
/// session that has not been reported yet, and a `<session>.live` file that the running process
/// holds an `flock` on for its whole life (the kernel drops the lock when the process dies, so
/// two processes sharing the directory never judge each other's live session).
///
/// Markers are written atomically (temporary file and rename) from the monitoring queue; the
/// lock file is opened once at start and closed at stop. Costs: one small file write per
/// update (every few seconds and at app-state changes).
final class SessionMarkerFile: @unchecked Sendable {
    /// A marker an earlier process left.
    struct Leftover {
        var marker: SessionMarker
        fileprivate var lockDescriptor: Int32
        fileprivate var url: URL
        fileprivate var liveURL: URL
    }

    let directory: URL
    private var liveDescriptor: Int32 = -1
    private var ownSession: UUID?

    init(dataDirectory: URL) {
        directory = dataDirectory.appendingPathComponent("sessions", isDirectory: true)
    }

    private func markerURL(_ session: UUID) -> URL { directory.appendingPathComponent("\(session.uuidString).json") }
    private func liveURL(_ session: UUID) -> URL { directory.appendingPathComponent("\(session.uuidString).live") }

    /// Takes the live lock for `session` (this process's); false when the directory refused.
    @discardableResult
    func claim(_ session: UUID) -> Bool {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fd = open(liveURL(session).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return false
        }
        liveDescriptor = fd
        ownSession = session
        return true
    }

    /// Writes `marker`, replacing the previous one; false when the disk refused.
    @discardableResult
    func write(_ marker: SessionMarker) -> Bool {
        guard let data = try? EventJSON.makeEncoder().encode(marker) else { return false }
        do {
            try data.write(to: markerURL(marker.session), options: .atomic)
            return true
        } catch {
            return false
        }
    }

    /// Removes this process's marker and lock (a clean stop, after its `exited` event was handed
    /// over).
    func release() {
        guard let session = ownSession else { return }
        unlink(markerURL(session).path)
        unlink(liveURL(session).path)
        if liveDescriptor >= 0 { close(liveDescriptor) }
        liveDescriptor = -1
        ownSession = nil
    }

    /// The markers of sessions whose process is gone, locked for this process until
    /// ``consume(_:)`` or ``keep(_:)``; unreadable markers are deleted.
    func leftovers() -> [Leftover] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        var found: [Leftover] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            guard let session = UUID(uuidString: String(name.dropLast(5))), session != ownSession else { continue }
            let url = markerURL(session), live = liveURL(session)
            let fd = open(live.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { continue }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)  // its process still runs
                continue
            }
            guard let data = try? Data(contentsOf: url), data.count < 1 << 20,
                  let marker = try? EventJSON.makeDecoder().decode(SessionMarker.self, from: data),
                  marker.session == session else {
                unlink(url.path)
                unlink(live.path)
                close(fd)
                continue
            }
            found.append(Leftover(marker: marker, lockDescriptor: fd, url: url, liveURL: live))
        }
        return found
    }

    /// Deletes a leftover that has been reported.
    func consume(_ leftover: Leftover) {
        unlink(leftover.url.path)
        unlink(leftover.liveURL.path)
        close(leftover.lockDescriptor)
    }

    /// Leaves a leftover for a later launch (its crash report could not be stored yet).
    func keep(_ leftover: Leftover) {
        close(leftover.lockDescriptor)
    }
}
