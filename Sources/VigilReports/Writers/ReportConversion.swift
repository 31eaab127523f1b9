import Foundation

/// What converting a report to another format loses.
///
/// Each writer keeps what its format can hold: the exception type, codes and reason, the fault
/// address, the crashed thread, thread names, the bundle identifier. What a format has no place
/// for is listed by ``unrepresentable(_:in:)`` so that the CLI can say so. Pure, thread-safe.
public enum ReportConversion {
    /// Human-readable descriptions of the parts of `report` that `format` cannot hold; empty
    /// when the conversion keeps everything the model has.
    public static func unrepresentable(_ report: CrashReport, in format: ReportFormat) -> [String] {
        var lost: [String] = []
        let registers = report.threads.contains { !$0.registers.isEmpty }
        switch format {
        case .ips, .appleText:
            if format == .appleText, report.kind == .jetsam { lost.append("the jetsam process list beyond the killed process") }
        case .metricKit:
            if registers { lost.append("registers") }
            if !report.applicationSpecificInfo.isEmpty { lost.append("Application Specific Information") }
            if let exception = report.exception {
                if exception.codes.count > 1 { lost.append("exception codes after the first (kept: the fault address)") }
                if exception.message != nil { lost.append("the exception message") }
            }
            if report.process.path != nil || report.process.pid != nil { lost.append("the process path and pid") }
            if report.images.contains(where: { $0.path != nil }) { lost.append("image paths") }
            if report.incidentID != nil { lost.append("the incident identifier") }
        case .vigil:
            if report.kind == .cpuException || report.kind == .diskWriteException || report.kind == .launch {
                lost.append("the whole \(report.kind.rawValue) diagnostic (events carry crashes and hangs)")
            }
            let otherRegisters = report.threads.enumerated().contains { $0.offset != report.triggeredThreadIndex && !$0.element.registers.isEmpty }
            if otherRegisters { lost.append("registers of threads other than the crashed one") }
            if report.threads.contains(where: { $0.frames.contains { $0.sourceFile != nil } }) { lost.append("source files and lines") }
            if report.process.path != nil || report.process.pid != nil { lost.append("the process path and pid") }
            if report.kind == .hang, report.threads.count > 1 { lost.append("threads other than the main thread") }
        case .ksCrash:
            lost.append("everything: KSCrash reports are read, not written")
        }
        return lost
    }
}
