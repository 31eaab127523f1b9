import Foundation
import VigilCore
import VigilReports

/// The ``CrashReportImporter`` backed by `VigilReports`: `.ips` (crashes, hangs, jetsam),
/// Apple's legacy text `.crash`, MetricKit payloads, Vigil's own events and KSCrash JSON
/// reports, each report converted to the crash or hang event it describes. A crash of the
/// crash reporter's own handler (KSCrash's recrash) is not stored as a crash of the app.
///
/// MetricKit CPU, disk-write and launch diagnostics have no event type; they are skipped and
/// counted, and a body with nothing convertible is an error naming why.
public struct VigilReportsImporter: CrashReportImporter {
    /// An importer with the standard reader limits.
    public init() {}

    public func events(fromReport body: Data, contentType: String?, fileName: String?) throws -> [Event] {
        let reports = try ReportReader.read(body)
        var events: [Event] = []
        var skipped: [String] = []
        for report in reports where report.isRecrash != true {
            do {
                events.append(try VigilEventWriter.event(from: report))
            } catch {
                skipped.append("\(error)")
            }
        }
        guard !events.isEmpty else {
            throw ReportImportError(reason: "no crash or hang in the report: " + (skipped.first ?? "nothing readable"))
        }
        return events
    }
}

/// A report that was read but holds nothing the server stores.
public struct ReportImportError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public var reason: String
    public var description: String { reason }
}
