import Foundation
import VigilCore
import VigilRuntime

/// Finds the raw crash reports that earlier runs left in the crash directory, turns each valid
/// one into a `crash` event, hands it to the sink, and deletes the file once the event is stored.
///
/// A file a live process holds (its `flock`) is left alone; an empty one (a run that ended
/// without crashing) is removed; a corrupt, truncated or foreign one is removed and counted by
/// reason. The lock is taken before a file is read and held until it is deleted, so two
/// launches sharing the directory never report one crash twice. Runs on the caller's thread;
/// cost: one read and parse per file (reports are well under 1 MiB).
struct CrashReportRecovery {
    /// One file's fate, for tests and `vigil-sample report`.
    enum Outcome: Sendable, Hashable {
        case recovered(file: String, event: UUID, session: UUID)
        case cleanRun(file: String)
        case discarded(file: String, error: RawCrashReportError)
        case deferred(file: String)
        case skippedLive(file: String)
    }

    let directory: URL
    let hangMarker: HangMarkerFile
    var parser = RawCrashReportParser()
    /// The file this run's handler writes: never recovered.
    var excluding: URL?

    /// Recovers every pending report into `sink`. `flush`, when given, is how a sink that cannot
    /// say whether an event is stored (the SDK's gate in front of its store) is made durable:
    /// it is called after `emit` and its result decides whether the file may go.
    func recover(into sink: any EventSink, flush: (@Sendable () -> Bool)? = nil, sanitizer: EventSanitizer,
                 counters: inout CrashRecoveryCounters) -> [Outcome] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory.path) else { return [] }
        var outcomes: [Outcome] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let url = directory.appendingPathComponent(name)
            if let excluding, url.standardizedFileURL.path == excluding.standardizedFileURL.path { continue }
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            outcomes.append(recoverFile(url, name: name, into: sink, flush: flush, sanitizer: sanitizer, counters: &counters))
        }
        return outcomes
    }

    private func recoverFile(_ url: URL, name: String, into sink: any EventSink, flush: (@Sendable () -> Bool)?,
                             sanitizer: EventSanitizer, counters: inout CrashRecoveryCounters) -> Outcome {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return discard(url, name, RawCrashReportError(.unreadable, "open: \(String(cString: strerror(errno)))"), &counters)
        }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            counters.skippedLive += 1
            return .skippedLive(file: name)
        }
        let data: Data
        switch readAll(fd) {
        case .success(let read): data = read
        case .failure(let error): return discard(url, name, error, &counters)
        }
        let report: RawCrashReport
        do {
            report = try parser.parse(data)
        } catch {
            if error.reason == .empty {
                unlink(url.path)
                counters.cleanRuns += 1
                return .cleanRun(file: name)
            }
            return discard(url, name, error, &counters)
        }
        let metadata: CrashSessionMetadata
        do {
            metadata = try CrashSessionMetadata.decode(report.metadata)
        } catch {
            return discard(url, name, RawCrashReportError(.malformed, "the metadata record is not the SDK's JSON: \(error)"), &counters)
        }
        let marker = hangMarker.leftover()
        let diedInHang = marker?.session == metadata.session
        var event = CrashEventBuilder.event(from: report, metadata: metadata, fatalHang: diedInHang)
        sanitizer.sanitize(&event)
        let stored: Bool
        if let durable = sink as? any DurableEventSink {
            stored = durable.emitDurably(event)
        } else {
            sink.emit(event)
            stored = flush?() ?? true
        }
        guard stored else {
            counters.deferred += 1
            return .deferred(file: name)
        }
        if diedInHang {
            hangMarker.remove()
            counters.hangMarkersMerged += 1
        }
        unlink(url.path)
        counters.recovered += 1
        return .recovered(file: name, event: event.id, session: metadata.session)
    }

    private func discard(_ url: URL, _ name: String, _ error: RawCrashReportError,
                         _ counters: inout CrashRecoveryCounters) -> Outcome {
        unlink(url.path)
        counters.discarded[error.reason, default: 0] += 1
        return .discarded(file: name, error: error)
    }

    private func readAll(_ fd: Int32) -> Result<Data, RawCrashReportError> {
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            return .failure(RawCrashReportError(.unreadable, "fstat: \(String(cString: strerror(errno)))"))
        }
        guard Int(status.st_size) <= parser.maxBytes else {
            return .failure(RawCrashReportError(.tooLarge, "\(status.st_size) bytes, more than \(parser.maxBytes)"))
        }
        var data = Data(count: Int(status.st_size))
        var total = 0
        let failure: Int32? = data.withUnsafeMutableBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            while total < raw.count {
                let got = read(fd, base + total, raw.count - total)
                if got < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if got == 0 { break }
                total += got
            }
            return nil
        }
        if let failure { return .failure(RawCrashReportError(.unreadable, "read: \(String(cString: strerror(failure)))")) }
        data.count = total
        return .success(data)
    }
}
