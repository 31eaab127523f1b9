import Foundation

/// MetricKit CPU-exception, disk-write-exception and launch diagnostics, and `EXC_RESOURCE`
/// crash reports: which resource ran over and the heaviest stack.
public struct ResourceRule: DiagnosisRule {
    public let id = "resource"
    public let priority = 60

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        let report = facts.report
        let category: CrashCategory
        var title: String
        var advice: [String]
        var evidence: [Evidence] = []
        switch report.kind {
        case .cpuException:
            category = .cpuUsage
            title = "Excessive CPU use"
            if let cpu = report.resource?.cpuTimeSeconds {
                title += String(format: ": %.0f s of CPU", cpu)
                if let sampled = report.resource?.sampledSeconds { title += String(format: " in %.0f s", sampled) }
                evidence.append(Evidence("diagnosticMetaData.totalCPUTime", String(format: "%.1f s", cpu), "CPU time used"))
            }
            advice = ["The heaviest stack shows where the CPU time went; profile it with Instruments (Time Profiler) and do less work, or defer it."]
        case .diskWriteException:
            category = .diskWrites
            title = "Excessive disk writes"
            if let bytes = report.resource?.bytesWritten {
                title += String(format: ": %.1f MB", bytes / 1_000_000)
                evidence.append(Evidence("diagnosticMetaData.writesCaused", String(format: "%.0f bytes", bytes), "bytes written"))
            }
            advice = ["Batch small writes, avoid rewriting whole files for small changes, and keep caches in memory or in the Caches directory."]
        case .launch:
            category = .slowLaunch
            title = "Slow launch"
            if let ms = report.resource?.launchDurationMs {
                title += String(format: ": %.1f s", ms / 1000)
                evidence.append(Evidence("diagnosticMetaData.launchDuration", String(format: "%.0f ms", ms), "time to the first frame"))
            }
            advice = ["Defer work not needed for the first frame; profile launch with Instruments (App Launch)."]
        case .crash where report.exception?.type == "EXC_RESOURCE":
            let subtype = report.exception?.subtype ?? report.exception?.message ?? ""
            evidence.append(Evidence("exception.type", "EXC_RESOURCE", subtype))
            if subtype.uppercased().contains("MEMORY") {
                category = .memoryPressure
                title = "Exceeded the memory limit (EXC_RESOURCE \(subtype))"
                advice = ["Reduce the process's peak memory footprint."]
            } else if subtype.uppercased().contains("IO") {
                category = .diskWrites
                title = "Exceeded the disk-write limit (EXC_RESOURCE \(subtype))"
                advice = ["Write less to disk."]
            } else {
                category = .cpuUsage
                title = "Exceeded the CPU limit (EXC_RESOURCE \(subtype))"
                advice = ["Use less CPU in the background."]
            }
        default:
            return nil
        }
        if let stack = report.threads.max(by: { weight($0) < weight($1) }), let index = report.threads.firstIndex(of: stack) {
            let outer = facts.outerFrames(index)
            if let app = outer.firstIndex(where: { report.isInApp($0) }),
               let item = facts.frameEvidence(thread: index, frame: app, "the app's code in the heaviest stack") {
                evidence.append(item)
                title += " in \(facts.describe(outer[app]))"
            } else if let item = facts.frameEvidence(thread: index, frame: 0, "the top of the heaviest stack") {
                evidence.append(item)
            }
        }
        return Diagnosis(ruleID: id, category: category, title: title, confidence: .high, evidence: evidence, advice: advice)
    }

    func weight(_ thread: ThreadRecord) -> Int {
        thread.samples?.reduce(0) { $0 + $1.count } ?? (thread.crashed ? 1 : 0)
    }
}
