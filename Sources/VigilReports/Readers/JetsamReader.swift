import Foundation

/// Reads a jetsam event report (`.ips`, `bug_type` 298): the memory status of the device and
/// every process, the jettisoned ones carrying a `reason`. The report has no backtraces; the
/// ``CrashReport/process`` is the (first) jettisoned process.
enum JetsamReader {
    static func read(header headerValue: JSONValue, body bodyValue: JSONValue, limits: ReportLimits) -> CrashReport {
        let body = JSONFields(bodyValue)
        var report = CrashReport(format: .ips, kind: .jetsam)
        report.bugType = JSONFields(headerValue).string("bug_type") ?? "298"
        report.incidentID = body.text("incident")
        report.captureTime = body.text("date")
        report.system.deviceModel = body.text("product") ?? body.text("modelCode")
        if let build = body.text("build") {
            let parsed = TextScanning.osVersion(build)
            (report.system.osName, report.system.osVersion, report.system.osBuild) = (parsed.name, parsed.version, parsed.build)
        }
        var jetsam = JetsamDetails(pageSize: body.object("memoryStatus")?.uint64("pageSize"),
                                   largestProcess: body.text("largestProcess"))
        let processes = body.array("processes") ?? []
        if !body.has("processes") { report.note("processes", "missing; no processes read") }
        jetsam.processCount = processes.count
        for (index, entry) in processes.prefix(limits.maxThreads * 4).enumerated() {
            let fields = JSONFields(entry, path: "processes[\(index)]")
            guard let reason = fields.text("reason") else { continue }
            jetsam.killed.append(JetsamProcess(
                name: fields.text("name"), uuid: fields.text("uuid").flatMap(ImageUUID.canonical), reason: reason,
                states: fields.strings("states"), residentPages: fields.uint64("rpages"),
                lifetimeMaxPages: fields.uint64("lifetimeMax")))
            if jetsam.killed.count == 1 {
                report.process.name = fields.text("name")
                report.process.pid = fields.int("pid")
            }
        }
        IPSReader.applyHeader(JSONFields(headerValue), to: &report)
        report.jetsam = jetsam
        return report
    }
}

/// Reads stackshot-style hang and spin reports (`.ips` `bug_type` 288 and 409): processes by
/// pid, each with threads by id whose frames are `[imageIndex, offset]` pairs into
/// `binaryImages`. The report's process is the one the metadata names (else the largest).
enum StackshotReader {
    static func read(header headerValue: JSONValue, body bodyValue: JSONValue, limits: ReportLimits) -> CrashReport {
        let header = JSONFields(headerValue)
        let body = JSONFields(bodyValue)
        var report = CrashReport(format: .ips, kind: .hang)
        report.bugType = header.string("bug_type")
        report.incidentID = body.text("incident") ?? header.text("incident_id")
        report.captureTime = body.text("date") ?? header.text("timestamp")
        report.system.deviceModel = body.text("modelCode") ?? body.text("product")

        for (index, entry) in (body.array("binaryImages") ?? []).prefix(limits.maxImages).enumerated() {
            let path = "binaryImages[\(index)]"
            if let parts = entry.array {
                let uuid = parts.first?.string
                let base = parts.count > 1 ? parts[1].uint64 ?? 0 : 0
                let name = parts.count > 3 ? parts[3].string : nil
                report.images.append(BinaryImage(name: name ?? "???", uuid: uuid, base: base,
                                                 source: parts.count > 2 ? parts[2].string : nil))
            } else if case .object = entry {
                let fields = JSONFields(entry, path: path)
                report.images.append(BinaryImage(name: fields.text("name") ?? "???", uuid: fields.text("uuid"),
                                                 arch: fields.text("arch"), base: fields.uint64("base") ?? 0,
                                                 size: fields.uint64("size"), path: fields.text("path")))
            } else {
                report.note(path, "expected an array or object; kept as an unknown image")
                report.images.append(BinaryImage(name: "???", uuid: nil, base: 0, origin: .unknown))
            }
        }

        let wanted = header.text("name") ?? header.text("app_name") ?? body.text("procName")
        var chosen: (pid: String, fields: JSONFields)?
        var mostThreads = -1
        for member in body.value["processByPid"]?.members ?? [] {
            let fields = JSONFields(member.value, path: "processByPid.\(member.key)")
            let threadCount = fields.value["threadById"]?.members?.count ?? 0
            if let wanted, fields.text("procname") == wanted || fields.text("procName") == wanted {
                chosen = (member.key, fields)
                break
            }
            if member.key != "0", threadCount > mostThreads {
                mostThreads = threadCount
                chosen = (member.key, fields)
            }
        }
        guard let (pid, process) = chosen else {
            report.note("processByPid", "no process found")
            return report
        }
        report.process.name = process.text("procname") ?? process.text("procName") ?? wanted
        report.process.pid = process.int("pid") ?? Int(pid)
        var threadEntries = (process.value["threadById"]?.members ?? []).map { ($0.key, $0.value) }
        threadEntries.sort { (UInt64($0.0) ?? .max) < (UInt64($1.0) ?? .max) }
        if threadEntries.count > limits.maxThreads {
            report.note(process.path("threadById"), "\(threadEntries.count) threads; kept the first \(limits.maxThreads)")
        }
        for (position, (key, value)) in threadEntries.prefix(limits.maxThreads).enumerated() {
            let fields = JSONFields(value, path: process.path("threadById") + ".\(key)")
            var thread = ThreadRecord(number: position, id: fields.uint64("id") ?? UInt64(key), name: fields.text("name"),
                                      queue: fields.text("dispatch_queue_label"))
            for (index, frame) in (fields.array("userFrames") ?? []).prefix(limits.maxFramesPerThread).enumerated() {
                var imageIndex: Int?
                var offset: UInt64?
                if let pair = frame.array, pair.count >= 2 {
                    imageIndex = pair[0].int
                    offset = pair[1].uint64
                } else {
                    imageIndex = frame["imageIndex"]?.int
                    offset = frame["imageOffset"]?.uint64
                }
                guard let offset else {
                    report.note(fields.path("userFrames") + "[\(index)]", "no usable offset; frame skipped")
                    continue
                }
                if let candidate = imageIndex, !report.images.indices.contains(candidate) {
                    report.note(fields.path("userFrames") + "[\(index)]", "image index \(candidate) out of range")
                    imageIndex = nil
                }
                thread.frames.append(StackFrame(imageIndex: imageIndex, imageOffset: offset))
            }
            report.threads.append(thread)
        }
        IPSReader.applyHeader(header, to: &report)
        return report
    }
}
