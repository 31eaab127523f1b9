import Foundation
import VigilCore

/// Builds ``Event``s straight from a ``JSONTape`` for the common case — a well-formed schema-v1
/// event — without going through `Decodable` (which costs most of ingest's time).
///
/// It is deliberately conservative: anything it is not sure how `Decodable` would judge (a
/// fractional number where an integer belongs, an unknown enum value, a duplicate member, an
/// unexpected type) makes it give up with ``Fallback``, and the caller decodes that event with
/// ``JSONTapeDecoder`` instead, which produces `JSONDecoder`'s exact outcome and error text.
/// The differential tests hold the two to the same results.
struct EventFastReader {
    /// "Decode this one the slow way."
    struct Fallback: Error {}

    let tape: JSONTape

    // MARK: Scalars

    func string(_ node: Int) throws(Fallback) -> String {
        guard tape.nodes[node].kind == .string else { throw Fallback() }
        return tape.string(node)
    }

    func optionalString(_ node: Int?) throws(Fallback) -> String? {
        guard let node, tape.nodes[node].kind != .null else { return nil }
        return try string(node)
    }

    func bool(_ node: Int) throws(Fallback) -> Bool {
        guard tape.nodes[node].kind == .bool else { throw Fallback() }
        return tape.nodes[node].flag
    }

    func double(_ node: Int) throws(Fallback) -> Double {
        let item = tape.nodes[node]
        guard item.kind == .number else { throw Fallback() }
        if !item.flag, item.end - item.start <= 15 { return Double(tape.smallInteger(node)) }
        guard let value = Double(tape.text(node)), value.isFinite else { throw Fallback() }
        return value
    }

    func optionalDouble(_ node: Int?) throws(Fallback) -> Double? {
        guard let node, tape.nodes[node].kind != .null else { return nil }
        return try double(node)
    }

    /// An integer written without fraction or exponent that fits `T`.
    func integer<T: FixedWidthInteger>(_ node: Int, as type: T.Type = T.self) throws(Fallback) -> T {
        let item = tape.nodes[node]
        guard item.kind == .number, !item.flag else { throw Fallback() }
        var index = Int(item.start)
        let end = Int(item.end)
        let negative = tape.bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value: T = 0
        while index < end {
            let digit = T(tape.bytes[index] &- UInt8(ascii: "0"))
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { throw Fallback() }
            let (next, overflow2) = negative ? product.subtractingReportingOverflow(digit) : product.addingReportingOverflow(digit)
            guard !overflow2 else { throw Fallback() }
            value = next
            index += 1
        }
        return value
    }

    func optionalInteger<T: FixedWidthInteger>(_ node: Int?, as type: T.Type = T.self) throws(Fallback) -> T? {
        guard let node, tape.nodes[node].kind != .null else { return nil }
        return try integer(node, as: T.self)
    }

    func date(_ node: Int) throws(Fallback) -> Date {
        // At the schema's precision, like EventJSON's decoder; anything else takes the slow path.
        guard let date = Timestamp.parse(try string(node)).flatMap(Timestamp.schemaDate) else { throw Fallback() }
        return date
    }

    func uuid(_ node: Int) throws(Fallback) -> UUID {
        guard tape.nodes[node].kind == .string, !tape.nodes[node].flag, let value = tape.uuid(node) else { throw Fallback() }
        return value
    }

    func address(_ node: Int) throws(Fallback) -> Address {
        let item = tape.nodes[node]
        switch item.kind {
        case .string:
            guard !item.flag else { throw Fallback() }
            var index = Int(item.start)
            let end = Int(item.end)
            if end - index >= 2, tape.bytes[index] == UInt8(ascii: "0"),
               tape.bytes[index + 1] == UInt8(ascii: "x") || tape.bytes[index + 1] == UInt8(ascii: "X") {
                index += 2
            }
            guard end - index > 0, end - index <= 16 else { throw Fallback() }
            var value: UInt64 = 0
            while index < end {
                guard let nibble = JSONTape.hexValue(tape.bytes[index]) else { throw Fallback() }
                value = value << 4 | UInt64(nibble)
                index += 1
            }
            return Address(value)
        case .number:
            return Address(try integer(node, as: UInt64.self))
        default:
            throw Fallback()
        }
    }

    func optionalAddress(_ node: Int?) throws(Fallback) -> Address? {
        guard let node, tape.nodes[node].kind != .null else { return nil }
        return try address(node)
    }

    func enumeration<T: RawRepresentable>(_ node: Int, as type: T.Type) throws(Fallback) -> T where T.RawValue == String {
        guard let value = T(rawValue: try string(node)) else { throw Fallback() }
        return value
    }

    // MARK: Containers

    /// Calls `body` with each member's name and value node; a repeated name gives up.
    func members(_ node: Int, _ body: (String, Int) throws(Fallback) -> Void) throws(Fallback) {
        guard tape.nodes[node].kind == .object else { throw Fallback() }
        var child = node + 1
        let count = Int(tape.nodes[node].count)
        // Repeated names without a list per object: a 64-bit filter of the names' length and
        // end bytes; only a name whose bit is already set is compared with the earlier names.
        var filter: UInt64 = 0
        for _ in 0..<count {
            let name = tape.string(child)
            let utf8 = name.utf8
            let bit = UInt64(1) << ((utf8.count &* 31 &+ Int(utf8.first ?? 0) &+ Int(utf8.last ?? 0) &* 7) & 63)
            if filter & bit != 0 {
                var earlier = node + 1
                while earlier < child {
                    if tape.string(earlier) == name { throw Fallback() }
                    earlier = Int(tape.nodes[earlier + 1].next)
                }
            }
            filter |= bit
            try body(name, child + 1)
            child = Int(tape.nodes[child + 1].next)
        }
    }

    func array<T>(_ node: Int, _ element: (Int) throws(Fallback) -> T) throws(Fallback) -> [T] {
        guard tape.nodes[node].kind == .array else { throw Fallback() }
        var result: [T] = []
        result.reserveCapacity(Int(tape.nodes[node].count))
        var child = node + 1
        for _ in 0..<Int(tape.nodes[node].count) {
            result.append(try element(child))
            child = Int(tape.nodes[child].next)
        }
        return result
    }

    func optionalArray<T>(_ node: Int?, _ element: (Int) throws(Fallback) -> T) throws(Fallback) -> [T]? {
        guard let node, tape.nodes[node].kind != .null else { return nil }
        return try array(node, element)
    }

    func stringDictionary(_ node: Int) throws(Fallback) -> [String: String] {
        var result: [String: String] = [:]
        try members(node) { (name, value) throws(Fallback) in result[name] = try string(value) }
        return result
    }

    func attributes(_ node: Int) throws(Fallback) -> [String: AttributeValue] {
        var result: [String: AttributeValue] = [:]
        try members(node) { (name, value) throws(Fallback) in
            switch tape.nodes[value].kind {
            case .bool: result[name] = .bool(tape.nodes[value].flag)
            case .string: result[name] = .string(tape.string(value))
            case .number:
                // Integers that fit Int64 are `.int`; anything else is left to Decodable's order.
                result[name] = .int(try integer(value, as: Int64.self))
            default: throw Fallback()
            }
        }
        return result
    }

    func stack(_ node: Int) throws(Fallback) -> [Address] { try array(node) { (item) throws(Fallback) in try address(item) } }

    // MARK: The event

    func event(_ node: Int) throws(Fallback) -> Event {
        var schema: Int?, id: UUID?, typeName: String?, time: Date?, session: UUID?
        var app: AppInfo?, device: DeviceInfo?, context = EventContext(), tags: [String: String] = [:]
        var images: [ImageInfo]?, payloadNode: Int?, install: UUID?, user: String?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "schema": schema = try integer(value)
            case "id": id = try uuid(value)
            case "type": typeName = try string(value)
            case "time": time = try date(value)
            case "session": session = try uuid(value)
            case "install": install = tape.nodes[value].kind == .null ? nil : try uuid(value)
            case "user": user = try optionalString(value)
            case "app": app = try appInfo(value)
            case "device": device = try deviceInfo(value)
            case "context": if tape.nodes[value].kind != .null { context = try eventContext(value) }
            case "tags": if tape.nodes[value].kind != .null { tags = try stringDictionary(value) }
            case "images": images = try optionalArray(value) { (item) throws(Fallback) in try imageInfo(item) }
            case "payload": payloadNode = value
            default: break
            }
        }
        guard let schema, schema >= 1, let id, let typeName, let type = EventType(rawValue: typeName), let time, let session,
              let app, let device, let payloadNode else { throw Fallback() }
        var event = Event(id: id, time: time, session: session, app: app, device: device, context: context, tags: tags,
                          images: images, install: install, user: user, payload: try payload(type, payloadNode))
        event.schema = schema
        return event
    }

    func appInfo(_ node: Int) throws(Fallback) -> AppInfo {
        var id: String?, version: String?, build: String?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "id": id = try string(value)
            case "version": version = try string(value)
            case "build": build = try string(value)
            default: break
            }
        }
        guard let id, let version, let build else { throw Fallback() }
        return AppInfo(id: id, version: version, build: build)
    }

    func deviceInfo(_ node: Int) throws(Fallback) -> DeviceInfo {
        var model: String?, os: String?, osVersion: String?, arch: String?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "model": model = try string(value)
            case "os": os = try string(value)
            case "osVersion": osVersion = try string(value)
            case "arch": arch = try string(value)
            default: break
            }
        }
        guard let model, let os, let osVersion, let arch else { throw Fallback() }
        return DeviceInfo(model: model, os: os, osVersion: osVersion, arch: arch)
    }

    func eventContext(_ node: Int) throws(Fallback) -> EventContext {
        var context = EventContext()
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "page": context.page = try optionalString(value)
            case "appState": context.appState = try optionalString(value)
            case "network": context.network = try optionalString(value)
            default: break
            }
        }
        return context
    }

    func imageInfo(_ node: Int) throws(Fallback) -> ImageInfo {
        var name: String?, id: String?, arch: String?, load: Address?, size: UInt64?, path: String?
        try members(node) { (key, value) throws(Fallback) in
            switch key {
            case "name": name = try string(value)
            case "id": id = try string(value)
            case "arch": arch = try string(value)
            case "loadAddress": load = try address(value)
            case "size": size = try integer(value)
            case "path": path = try optionalString(value)
            default: break
            }
        }
        guard let name, let id, let arch, let load, let size else { throw Fallback() }
        return ImageInfo(name: name, id: id, arch: arch, loadAddress: load, size: size, path: path)
    }

    func payload(_ type: EventType, _ node: Int) throws(Fallback) -> EventPayload {
        switch type {
        case .hang: return .hang(try hang(node))
        case .frames: return .frames(try frames(node))
        case .launch: return .launch(try launch(node))
        case .network: return .network(try network(node))
        case .crash: return .crash(try crash(node))
        case .resource: return .resource(try resource(node))
        case .span: return .span(try span(node))
        case .log: return .log(try log(node))
        case .session: return .session(try session(node))
        }
    }

    // MARK: Payloads

    func hang(_ node: Int) throws(Fallback) -> HangPayload {
        var start: Date?, end: Date?, duration: Double?, kind: HangKind?, threshold: Double?, activity: String?
        var stacks: [StackCount]?, hot: [Address]?, samples: Int?, cpu: Double?, memory: UInt64?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "start": start = try date(value)
            case "end": end = try date(value)
            case "durationMs": duration = try double(value)
            case "kind": kind = try enumeration(value, as: HangKind.self)
            case "thresholdMs": threshold = try double(value)
            case "runLoopActivity": activity = try string(value)
            case "stacks": stacks = try array(value) { (item) throws(Fallback) in try stackCount(item) }
            case "hotStack": hot = try optionalArray(value) { (item) throws(Fallback) in try address(item) }
            case "sampleCount": samples = try optionalInteger(value)
            case "cpuPercent": cpu = try optionalDouble(value)
            case "memoryBytes": memory = try optionalInteger(value)
            default: break
            }
        }
        guard let start, let end, let duration, let kind, let threshold, let activity, let stacks else { throw Fallback() }
        return HangPayload(start: start, end: end, durationMs: duration, kind: kind, thresholdMs: threshold, runLoopActivity: activity,
                           stacks: stacks, hotStack: hot, sampleCount: samples, cpuPercent: cpu, memoryBytes: memory)
    }

    func stackCount(_ node: Int) throws(Fallback) -> StackCount {
        var frames: [Address]?, count: Int?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "frames": frames = try stack(value)
            case "count": count = try integer(value)
            default: break
            }
        }
        guard let frames, let count else { throw Fallback() }
        return StackCount(frames: frames, count: count)
    }

    func frames(_ node: Int) throws(Fallback) -> FramesPayload {
        var page: String?, start: Date?, end: Date?, frames: Int?, fps: Double?, refresh: Double?
        var dropped: Int?, slow: Int?, severe: Int?, frozen: Int?, duration: Double?, stackValue: [Address]?
        var frozenFrames: [FrozenFrame]?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "page": page = try optionalString(value)
            case "windowStart": start = try date(value)
            case "windowEnd": end = try date(value)
            case "frames": frames = try integer(value)
            case "fps": fps = try double(value)
            case "refreshRate": refresh = try double(value)
            case "dropped": dropped = try integer(value)
            case "slow": slow = try integer(value)
            case "severe": severe = try integer(value)
            case "frozen": frozen = try integer(value)
            case "durationMs": duration = try optionalDouble(value)
            case "stack": stackValue = try optionalArray(value) { (item) throws(Fallback) in try address(item) }
            case "frozenFrames": frozenFrames = try optionalArray(value) { (item) throws(Fallback) in try frozenFrame(item) }
            default: break
            }
        }
        guard let start, let end, let frames, let fps, let refresh, let dropped, let slow, let severe, let frozen else { throw Fallback() }
        return FramesPayload(page: page, windowStart: start, windowEnd: end, frames: frames, fps: fps, refreshRate: refresh,
                             dropped: dropped, slow: slow, severe: severe, frozen: frozen, durationMs: duration, stack: stackValue,
                             frozenFrames: frozenFrames)
    }

    func frozenFrame(_ node: Int) throws(Fallback) -> FrozenFrame {
        var start: Date?, duration: Double?, stackValue: [Address]?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "start": start = try date(value)
            case "durationMs": duration = try double(value)
            case "stack": stackValue = try optionalArray(value) { (item) throws(Fallback) in try address(item) }
            default: break
            }
        }
        guard let start, let duration else { throw Fallback() }
        return FrozenFrame(start: start, durationMs: duration, stack: stackValue)
    }

    func launch(_ node: Int) throws(Fallback) -> LaunchPayload {
        var kind: LaunchKind?, processStart: Date?, preMain: Double?, mainToDidFinish: Double?, ttid: Double?, ttfd: Double?
        var faults: Int?, majorFaults: Int?, trace: String?, tasks: [SpanPayload]?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "kind": kind = try enumeration(value, as: LaunchKind.self)
            case "processStart": processStart = try date(value)
            case "preMainMs": preMain = try optionalDouble(value)
            case "mainToDidFinishMs": mainToDidFinish = try optionalDouble(value)
            case "ttidMs": ttid = try optionalDouble(value)
            case "ttfdMs": ttfd = try optionalDouble(value)
            case "pageFaults": faults = try optionalInteger(value)
            case "majorPageFaults": majorFaults = try optionalInteger(value)
            case "traceId": trace = try optionalString(value)
            case "tasks": tasks = try optionalArray(value) { (item) throws(Fallback) in try span(item) }
            default: break
            }
        }
        guard let kind, let processStart else { throw Fallback() }
        return LaunchPayload(kind: kind, processStart: processStart, preMainMs: preMain, mainToDidFinishMs: mainToDidFinish,
                             ttidMs: ttid, ttfdMs: ttfd, pageFaults: faults, majorPageFaults: majorFaults, traceId: trace, tasks: tasks)
    }

    func network(_ node: Int) throws(Fallback) -> NetworkPayload {
        var method: String?, template: String?, host: String?, status: Int?, error: String?, sent: Int64?, received: Int64?
        var timings: NetworkTimings?, reused: Bool?, proto: String?, trace: String?, spanID: String?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "method": method = try string(value)
            case "urlTemplate": template = try string(value)
            case "host": host = try string(value)
            case "status": status = try optionalInteger(value)
            case "error": error = try optionalString(value)
            case "bytesSent": sent = try integer(value)
            case "bytesReceived": received = try integer(value)
            case "timings": timings = try networkTimings(value)
            case "reusedConnection": reused = tape.nodes[value].kind == .null ? nil : try bool(value)
            case "protocol": proto = try optionalString(value)
            case "traceId": trace = try optionalString(value)
            case "spanId": spanID = try optionalString(value)
            default: break
            }
        }
        guard let method, let template, let host, let sent, let received, let timings else { throw Fallback() }
        return NetworkPayload(method: method, urlTemplate: template, host: host, status: status, error: error, bytesSent: sent,
                              bytesReceived: received, timings: timings, reusedConnection: reused, protocol: proto,
                              traceId: trace, spanId: spanID)
    }

    func networkTimings(_ node: Int) throws(Fallback) -> NetworkTimings {
        var timings = NetworkTimings(total: 0)
        var total: Double?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "dns": timings.dns = try optionalDouble(value)
            case "connect": timings.connect = try optionalDouble(value)
            case "tls": timings.tls = try optionalDouble(value)
            case "request": timings.request = try optionalDouble(value)
            case "ttfb": timings.ttfb = try optionalDouble(value)
            case "response": timings.response = try optionalDouble(value)
            case "total": total = try double(value)
            default: break
            }
        }
        guard let total else { throw Fallback() }
        timings.total = total
        return timings
    }

    func crash(_ node: Int) throws(Fallback) -> CrashPayload {
        var signal: String?, code: String?, fault: Address?, exception: CrashException?, threads: [CrashThread]?
        var registers: [String: Address]?, fatal: Bool?, termination: String?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "signal": signal = try optionalString(value)
            case "code": code = try optionalString(value)
            case "faultAddress": fault = try optionalAddress(value)
            case "exception": exception = tape.nodes[value].kind == .null ? nil : try crashException(value)
            case "threads": threads = try array(value) { (item) throws(Fallback) in try crashThread(item) }
            case "registers":
                if tape.nodes[value].kind != .null {
                    var table: [String: Address] = [:]
                    try members(value) { (register, item) throws(Fallback) in table[register] = try address(item) }
                    registers = table
                }
            case "fatalHang": fatal = try bool(value)
            case "terminationReason": termination = try optionalString(value)
            default: break
            }
        }
        guard let threads, let fatal else { throw Fallback() }
        return CrashPayload(signal: signal, code: code, faultAddress: fault, exception: exception, threads: threads,
                            registers: registers, fatalHang: fatal, terminationReason: termination)
    }

    func crashException(_ node: Int) throws(Fallback) -> CrashException {
        var type: String?, reason: String?, frames: [Address]?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "type": type = try string(value)
            case "reason": reason = try optionalString(value)
            case "frames": frames = tape.nodes[value].kind == .null ? nil : try stack(value)
            default: break
            }
        }
        guard let type else { throw Fallback() }
        return CrashException(type: type, reason: reason, frames: frames)
    }

    func crashThread(_ node: Int) throws(Fallback) -> CrashThread {
        var crashed: Bool?, name: String?, frames: [Address]?
        try members(node) { (key, value) throws(Fallback) in
            switch key {
            case "crashed": crashed = try bool(value)
            case "name": name = try optionalString(value)
            case "frames": frames = try stack(value)
            default: break
            }
        }
        guard let crashed, let frames else { throw Fallback() }
        return CrashThread(crashed: crashed, name: name, frames: frames)
    }

    func resource(_ node: Int) throws(Fallback) -> ResourcePayload {
        var cpu: Double?, threads: [ThreadUsage]?, memory: UInt64?, rss: UInt64?, pss: UInt64?, block: CPUBlock?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "cpuPercent": cpu = try double(value)
            case "threads": threads = try optionalArray(value) { (item) throws(Fallback) in try threadUsage(item) }
            case "memoryBytes": memory = try integer(value)
            case "rssBytes": rss = try optionalInteger(value)
            case "pssBytes": pss = try optionalInteger(value)
            case "cpuBlock": block = tape.nodes[value].kind == .null ? nil : try cpuBlock(value)
            default: break
            }
        }
        guard let cpu, let memory else { throw Fallback() }
        return ResourcePayload(cpuPercent: cpu, threads: threads, memoryBytes: memory, rssBytes: rss, pssBytes: pss, cpuBlock: block)
    }

    func threadUsage(_ node: Int) throws(Fallback) -> ThreadUsage {
        var name: String?, id: UInt64?, cpu: Double?
        try members(node) { (key, value) throws(Fallback) in
            switch key {
            case "name": name = try optionalString(value)
            case "id": id = try integer(value)
            case "cpuPercent": cpu = try double(value)
            default: break
            }
        }
        guard let id, let cpu else { throw Fallback() }
        return ThreadUsage(name: name, id: id, cpuPercent: cpu)
    }

    func cpuBlock(_ node: Int) throws(Fallback) -> CPUBlock {
        var window: Double?, average: Double?, threshold: Double?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "windowMs": window = try double(value)
            case "averagePercent": average = try double(value)
            case "thresholdPercent": threshold = try double(value)
            default: break
            }
        }
        guard let window, let average, let threshold else { throw Fallback() }
        return CPUBlock(windowMs: window, averagePercent: average, thresholdPercent: threshold)
    }

    func span(_ node: Int) throws(Fallback) -> SpanPayload {
        var trace: String?, spanID: String?, parent: String?, name: String?, kind: SpanKind?, start: Date?, end: Date?
        var status: SpanStatus?, message: String?, attributes: [String: AttributeValue]?
        try members(node) { (key, value) throws(Fallback) in
            switch key {
            case "traceId": trace = try string(value)
            case "spanId": spanID = try string(value)
            case "parentSpanId": parent = try optionalString(value)
            case "name": name = try string(value)
            case "kind": kind = tape.nodes[value].kind == .null ? nil : try enumeration(value, as: SpanKind.self)
            case "start": start = try date(value)
            case "end": end = try date(value)
            case "status": status = try enumeration(value, as: SpanStatus.self)
            case "statusMessage": message = try optionalString(value)
            case "attributes": attributes = try self.attributes(value)
            default: break
            }
        }
        guard let trace, let spanID, let name, let start, let end, let status, let attributes else { throw Fallback() }
        return SpanPayload(traceId: trace, spanId: spanID, parentSpanId: parent, name: name, kind: kind, start: start, end: end,
                           status: status, statusMessage: message, attributes: attributes)
    }

    func log(_ node: Int) throws(Fallback) -> LogPayload {
        var level: LogLevel?, message: String?, attributes: [String: AttributeValue]?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "level": level = try enumeration(value, as: LogLevel.self)
            case "message": message = try string(value)
            case "attributes": attributes = tape.nodes[value].kind == .null ? nil : try self.attributes(value)
            default: break
            }
        }
        guard let level, let message else { throw Fallback() }
        return LogPayload(level: level, message: message, attributes: attributes)
    }

    func session(_ node: Int) throws(Fallback) -> SessionPayload {
        var start: Date?, end: Date?, duration: Double?, foreground: Double?, outcome: SessionOutcome?
        var reasons: [String]?, lastState: String?
        try members(node) { (name, value) throws(Fallback) in
            switch name {
            case "start": start = try date(value)
            case "end": end = try date(value)
            case "durationMs": duration = try double(value)
            case "foregroundMs": foreground = try double(value)
            case "outcome": outcome = try enumeration(value, as: SessionOutcome.self)
            case "reasons": reasons = try array(value) { (item) throws(Fallback) in try string(item) }
            case "lastAppState": lastState = try optionalString(value)
            default: break
            }
        }
        guard let start, let end, let duration, let foreground, let outcome, let reasons else { throw Fallback() }
        return SessionPayload(start: start, end: end, durationMs: duration, foregroundMs: foreground, outcome: outcome,
                              reasons: reasons, lastAppState: lastState)
    }
}
