import Foundation

/// Jetsam event reports: the kernel killed processes for memory. Tells a process that crossed
/// its own limit (`per-process-limit`) from one killed to relieve system-wide pressure
/// (`vm-pageshortage`, `vnode-limit`, `fc-thrashing`…), following Apple's "Identifying
/// high-memory use with jetsam event reports".
public struct JetsamRule: DiagnosisRule {
    public let id = "jetsam"
    public let priority = 75

    public init() {}

    public func diagnose(_ facts: ReportFacts) -> Diagnosis? {
        guard facts.report.kind == .jetsam, let jetsam = facts.report.jetsam else { return nil }
        guard let killed = jetsam.killed.first else {
            return Diagnosis(ruleID: id, category: .memoryPressure,
                             title: "Jetsam event: no process of this report was jettisoned", confidence: .low,
                             evidence: [Evidence("processes", "\(jetsam.processCount) processes", "none has a reason")],
                             advice: ["If the app crashed at this time, this report does not explain it: look for its crash report."])
        }
        let name = killed.name ?? "the process"
        var evidence = [Evidence("processes[].reason", killed.reason ?? "?", "why \(name) was jettisoned")]
        var footprint = ""
        var factsList = [ReportField(name: "jetsamReason", value: killed.reason ?? "")]
        if let pages = killed.residentPages, let pageSize = jetsam.pageSize {
            let bytes = Double(pages) * Double(pageSize)
            footprint = String(format: "%.0f MB", bytes / 1_000_000)
            evidence.append(Evidence("processes[].rpages", "\(pages) × \(pageSize) bytes", "resident memory \(footprint)"))
            factsList.append(ReportField(name: "residentBytes", value: String(format: "%.0f", bytes)))
        }
        if !killed.states.isEmpty {
            evidence.append(Evidence("processes[].states", killed.states.joined(separator: ", "), "memory state when jettisoned"))
        }
        if let largest = jetsam.largestProcess {
            evidence.append(Evidence("largestProcess", largest, "the process using the most memory"))
        }
        let title: String
        var advice: [String]
        switch killed.reason {
        case "per-process-limit"?:
            title = "Jetsam: \(name) exceeded its memory limit" + (footprint.isEmpty ? "" : " (\(footprint) resident)")
            advice = ["The process crossed the per-process memory limit: reduce its peak footprint (images, caches, large buffers); app extensions have much lower limits than apps.",
                      "Measure with Instruments (Allocations, VM Tracker) and the memory gauge; respond to memory warnings."]
        case "vm-pageshortage"?, "vm-thrashing"?, "memory-pressure"?:
            title = "Jetsam: \(name) was killed to relieve system memory pressure (\(killed.reason ?? ""))"
            advice = ["The system needed memory for the foreground app and reclaimed it from \(name); lower its memory use in the background and free caches on memory warnings."]
        case "vnode-limit"?:
            title = "Jetsam: \(name) was killed because the system ran out of open-file slots (vnode-limit)"
            advice = ["Too many files were open system-wide; close files promptly. The app may not be the cause."]
        case "fc-thrashing"?:
            title = "Jetsam: \(name) was killed for file-cache thrashing (fc-thrashing)"
            advice = ["Avoid random access to large memory-mapped files; read them sequentially or in smaller pieces."]
        case "highwater"?:
            title = "Jetsam: \(name) exceeded its high-water memory mark"
            advice = ["A daemon exceeded its expected footprint; if it is yours, reduce its memory use."]
        default:
            title = "Jetsam: \(name) was jettisoned (\(killed.reason ?? "no reason given"))"
            advice = ["The system reclaimed memory by killing the process; reduce its memory use."]
        }
        if jetsam.largestProcess == killed.name {
            advice.append("\(name) was the largest process on the device at the time.")
        }
        return Diagnosis(ruleID: id, category: .memoryPressure, title: title, confidence: .high, evidence: evidence,
                         advice: advice, facts: factsList)
    }
}
