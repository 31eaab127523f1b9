import Foundation
import VigilServer

/// What the demo prints at the end, read from the server's query endpoints (the numbers the
/// dashboard shows): events per type, the issues with their top in-app frame, the slowest
/// request templates, launch times and the page with the most hang time.
struct DemoSummary {
    let client: DemoHTTPClient

    /// Polls `GET /api/v1/aggregates/overview` until `expected` events are processed and none
    /// is pending, or `timeoutSeconds` pass. Returns the last overview and the seconds waited.
    func waitForProcessing(expected: Int, timeoutSeconds: Double) throws -> (Overview, Double) {
        let started = Date()
        while true {
            let overview = try client.get("api/v1/aggregates/overview", as: Overview.self)
            let processed = overview.eventsByType.values.reduce(0, +)
            let waited = Date().timeIntervalSince(started)
            if overview.pending == 0, processed >= expected { return (overview, waited) }
            if waited >= timeoutSeconds {
                throw DemoError("after \(Int(timeoutSeconds)) s the server had processed \(processed) of \(expected) events "
                    + "(\(overview.pending) pending)")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// The summary text.
    func text(overview: Overview, uploaded: Int, runs: Int, waited: Double) throws -> String {
        var lines: [String] = []
        let byType = overview.eventsByType.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        lines.append("")
        lines.append("vigil demo: \(runs) runs of vigil-sample uploaded \(uploaded) events through the SDK's store and uploader; "
            + String(format: "all processed %.1f s after the last upload.", waited))
        lines.append("  events: \(byType)")

        struct IssueList: Decodable {
            struct Issue: Decodable {
                var id: Int64
                var kind: String
                var title: String
                var subtitle: String?
                var events: Int64
                var users: Int64
            }
            var issues: [Issue]
        }
        struct IssueFrames: Decodable { var frames: [ResolvedFrame] }
        let issues = try client.get("api/v1/issues", query: "limit=6", as: IssueList.self).issues
        lines.append("  issues (\(overview.crashIssues) crash, \(overview.hangIssues) hang), most events first:")
        for issue in issues {
            lines.append("    [\(issue.kind)] \(issue.title) — \(issue.events) event(s), \(issue.users) user(s)"
                + (issue.subtitle.map { "; \($0)" } ?? ""))
            let frames = try client.get("api/v1/issues/\(issue.id)", as: IssueFrames.self).frames
            if let top = frames.first(where: { $0.inApp && $0.function != nil }) {
                let file = top.file.map { " (\(URL(fileURLWithPath: $0).lastPathComponent)\(top.line.map { ":\($0)" } ?? ""))" } ?? ""
                lines.append("        top in-app frame: \(top.function ?? "")\(file)")
            } else if let first = frames.first {
                lines.append("        top frame: \(first.function ?? first.address) in \(first.image ?? "an unknown image") (not symbolicated)")
            }
        }

        struct Templates: Decodable { var templates: [NetworkTemplateStat] }
        let templates = try client.get("api/v1/aggregates/network", as: Templates.self).templates
        if !templates.isEmpty {
            lines.append("  requests, slowest p95 first:")
            for template in templates.prefix(5) {
                lines.append("    \(template.template): \(template.requests) requests, \(template.errors) failed, "
                    + "p50 \(Self.ms(template.p50Ms)), p95 \(Self.ms(template.p95Ms))")
            }
        }
        struct Launches: Decodable { var versions: [LaunchStat] }
        for launch in try client.get("api/v1/aggregates/launch", as: Launches.self).versions {
            lines.append("  launch \(launch.version) (\(launch.kind)): \(launch.launches) launch(es), "
                + "time to initial display p50 \(Self.ms(launch.ttidP50Ms)), to full display p50 \(Self.ms(launch.ttfdP50Ms))")
        }
        struct Pages: Decodable { var pages: [FramePageStat] }
        for page in try client.get("api/v1/aggregates/frames", as: Pages.self).pages {
            lines.append("  frames on \(page.page): \(page.frames) rendered, \(page.slow) slow, \(page.severe) severe, "
                + "\(page.frozen) frozen")
        }
        struct Hangs: Decodable { var pages: [HangPageStat] }
        if let worst = try client.get("api/v1/aggregates/hangs", as: Hangs.self).pages.first {
            lines.append(String(format: "  most hang time: page %@, %.1f s in %lld hang(s)", worst.page, worst.totalMs / 1000,
                                worst.hangs))
        }
        struct Releases: Decodable {
            struct Release: Decodable { var total: Figures }
            struct Figures: Decodable {
                var version: String
                var build: String
                var sessions: Int64
                var users: Int64
                var outcomes: [String: Int64]
                var crashFreeUsersPercent: Double?
                var crashFreeSessionsPercent: Double?
                var hangRateSecondsPerHour: Double?
            }
            var releases: [Release]
        }
        for release in try client.get("api/v1/releases", as: Releases.self).releases.map(\.total) {
            let outcomes = release.outcomes.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            lines.append("  release \(release.version) (\(release.build)): \(release.sessions) session(s) (\(outcomes.joined(separator: ", "))), "
                + "\(release.users) user(s), crash-free users \(Self.percent(release.crashFreeUsersPercent)), "
                + "crash-free sessions \(Self.percent(release.crashFreeSessionsPercent)), "
                + "hang rate \(release.hangRateSecondsPerHour.map { String(format: "%.1f s/h", $0) } ?? "–")")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.1f %%", $0) } ?? "–"
    }

    private static func ms(_ value: Double?) -> String {
        value.map { String(format: "%.0f ms", $0) } ?? "–"
    }
}
