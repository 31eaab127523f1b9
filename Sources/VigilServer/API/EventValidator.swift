import Foundation
import VigilCore

/// Checks a decoded event for values that cannot be true — a negative duration, an end before
/// its start, an HTTP status of 42, a time in 1970 or next year — and names the first bad field.
///
/// Decoding already guarantees types and required fields; this catches what types cannot.
/// Pure; `now` is passed in.
public struct EventValidator: Sendable {
    /// How far in the future an event may claim to be (device clocks drift), in seconds.
    public var maxFutureSkew: TimeInterval = 86_400
    /// The earliest plausible event time.
    public var earliest = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01

    /// A validator with the default bounds.
    public init() {}

    /// The first problem with `event` as `field: problem`, or nil when it is plausible.
    public func problem(in event: Event, now: Date) -> String? {
        if event.id == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) { return "id: must not be the nil UUID" }
        if let problem = time(event.time, "time", now: now) { return problem }
        if event.app.id.isEmpty { return "app.id: must not be empty" }
        if event.app.version.isEmpty { return "app.version: must not be empty" }
        switch event.payload {
        case .hang(let hang):
            return nonNegative(hang.durationMs, "payload.durationMs")
                ?? nonNegative(hang.thresholdMs, "payload.thresholdMs")
                ?? ordered(hang.start, hang.end, "payload.end")
                ?? hang.stacks.firstIndex(where: { $0.count < 0 }).map { "payload.stacks[\($0)].count: must not be negative" }
        case .frames(let frames):
            if frames.frames < 0 || frames.dropped < 0 || frames.slow < 0 || frames.severe < 0 || frames.frozen < 0 {
                return "payload: frame counts must not be negative"
            }
            return nonNegative(frames.fps, "payload.fps") ?? nonNegative(frames.refreshRate, "payload.refreshRate")
                ?? frames.durationMs.flatMap { nonNegative($0, "payload.durationMs") }
                ?? ordered(frames.windowStart, frames.windowEnd, "payload.windowEnd")
        case .launch(let launch):
            for (value, name) in [(launch.preMainMs, "preMainMs"), (launch.mainToDidFinishMs, "mainToDidFinishMs"),
                                  (launch.ttidMs, "ttidMs"), (launch.ttfdMs, "ttfdMs")] {
                if let value, let problem = nonNegative(value, "payload.\(name)") { return problem }
            }
            return nil
        case .network(let network):
            if network.method.isEmpty { return "payload.method: must not be empty" }
            if network.urlTemplate.isEmpty { return "payload.urlTemplate: must not be empty" }
            if let status = network.status, !(100...599).contains(status) { return "payload.status: \(status) is not an HTTP status" }
            if network.bytesSent < 0 || network.bytesReceived < 0 { return "payload.bytes: must not be negative" }
            let timings = network.timings
            for (value, name) in [(timings.dns, "dns"), (timings.connect, "connect"), (timings.tls, "tls"),
                                  (timings.request, "request"), (timings.ttfb, "ttfb"), (timings.response, "response"),
                                  (Optional(timings.total), "total")] {
                if let value, let problem = nonNegative(value, "payload.timings.\(name)") { return problem }
            }
            return nil
        case .crash(let crash):
            if crash.threads.filter(\.crashed).count > 1 { return "payload.threads: more than one thread is marked crashed" }
            return nil
        case .resource(let resource):
            return nonNegative(resource.cpuPercent, "payload.cpuPercent")
        case .span(let span):
            if span.traceId.isEmpty { return "payload.traceId: must not be empty" }
            if span.spanId.isEmpty { return "payload.spanId: must not be empty" }
            return ordered(span.start, span.end, "payload.end")
        case .log:
            return nil
        case .session(let session):
            if let problem = nonNegative(session.durationMs, "payload.durationMs") { return problem }
            if let problem = nonNegative(session.foregroundMs, "payload.foregroundMs") { return problem }
            if session.durationMs.isNaN || session.foregroundMs.isNaN { return "payload: durations must be numbers" }
            return ordered(session.start, session.end, "payload.end")
        }
    }

    private func time(_ date: Date, _ field: String, now: Date) -> String? {
        if date < earliest { return "\(field): \(Timestamp.format(date)) is before 2000" }
        if date.timeIntervalSince(now) > maxFutureSkew { return "\(field): \(Timestamp.format(date)) is more than a day in the future" }
        return nil
    }

    private func nonNegative(_ value: Double, _ field: String) -> String? {
        value < 0 ? "\(field): must not be negative (got \(value))" : nil
    }

    private func ordered(_ start: Date, _ end: Date, _ field: String) -> String? {
        end < start ? "\(field): ends before it starts" : nil
    }
}
