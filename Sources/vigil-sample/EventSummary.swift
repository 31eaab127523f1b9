import Foundation
import VigilCore

/// One line per event for the sample's and the demo's output.
enum EventSummary {
    static func line(for event: Event) -> String {
        func ms(_ value: Double) -> String { String(format: "%.0f ms", value) }
        switch event.payload {
        case .hang(let hang):
            let hot = hang.hotStack.map { "hot stack \($0.count) frames" } ?? "no stack"
            return "hang: \(ms(hang.durationMs)) \(hang.kind.rawValue), threshold \(ms(hang.thresholdMs)), "
                + "\(hang.sampleCount ?? 0) samples, \(hang.stacks.count) distinct stacks, \(hot)"
                + (hang.cpuPercent.map { String(format: ", CPU %.0f%%", $0) } ?? "")
        case .frames(let frames):
            return "frames: page \(frames.page ?? "-"), \(frames.frames) frames at \(String(format: "%.1f", frames.fps)) fps "
                + "(\(Int(frames.refreshRate)) Hz), dropped \(frames.dropped), slow \(frames.slow), "
                + "severe \(frames.severe), frozen \(frames.frozen)"
                + (frames.durationMs.map { ", longest freeze \(ms($0))" } ?? "")
                + (frames.stack.map { ", freeze stack \($0.count) frames" } ?? "")
        case .launch(let launch):
            let phases = [("pre-main", launch.preMainMs), ("main→didFinish", launch.mainToDidFinishMs),
                          ("TTID", launch.ttidMs), ("TTFD", launch.ttfdMs)]
                .compactMap { name, value in value.map { "\(name) \(ms($0))" } }
            return "launch: \(launch.kind.rawValue), " + phases.joined(separator: ", ")
                + (launch.pageFaults.map { ", \($0) page faults" } ?? "")
        case .resource(let resource):
            return "resource: CPU \(String(format: "%.1f", resource.cpuPercent))%, memory \(resource.memoryBytes / 1024) KiB"
                + (resource.cpuBlock.map { String(format: ", CPU block %.0f%%", $0.averagePercent) } ?? "")
        case .crash(let crash):
            let crashed = crash.threads.first { $0.crashed }
            return "crash: \(crash.signal ?? "?") \(crash.code ?? "")"
                + (crash.faultAddress.map { " at \($0.hex)" } ?? "")
                + ", \(crash.threads.count) threads, crashed thread \(crashed?.name ?? "-") \(crashed?.frames.count ?? 0) frames"
                + (crash.exception?.reason.map { ", \"\($0)\"" } ?? "") + (crash.fatalHang ? ", during a hang" : "")
        case .session(let session):
            return "session: \(session.outcome.rawValue) after \(String(format: "%.1f", session.durationMs / 1000)) s, "
                + "\(String(format: "%.1f", session.foregroundMs / 1000)) s in the foreground (\(session.reasons.first ?? "-"))"
        default:
            return "\(event.type.rawValue)"
        }
    }
}
