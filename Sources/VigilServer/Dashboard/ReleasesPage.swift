import Foundation
import VigilCore

/// `/releases`: release health — a table of every release's sessions, users, crash-free
/// sessions and users, abnormal exits, hang rate, fatal hangs, TTID and adoption over the last
/// 30 days, the newest release against the one before it (a change for the worse highlighted),
/// and daily trends of crash-free sessions and hang rate per release.
enum ReleasesPage {
    static func render(_ page: DashboardPage) throws -> HTTPResponse {
        let releases = try health(page)
        var html = HTML()
        guard !releases.isEmpty else {
            html.raw("<p class=\"empty\">No sessions yet: the SDK reports one `session` event per app run.</p>")
            return try page.render(title: "Releases", active: "/releases", body: html.output, note: note(page))
        }
        html.raw("<p class=\"muted\">")
        html.text(page.filter.rangeLabel)
        html.raw(" (whole UTC days). Crash-free counts crashes and fatal hangs; the hang rate is seconds of "
                 + "hangs of 250 ms or more per hour in the foreground; users are estimated (±2 %).</p>")
        html.raw("<table id=\"releases\"><thead><tr><th>Release</th><th class=\"num\">Sessions</th><th class=\"num\">Users</th>"
                 + "<th class=\"num\">Crash-free sessions</th><th class=\"num\">Crash-free users</th><th class=\"num\">Abnormal exits</th>"
                 + "<th class=\"num\">Hang rate (s/h)</th><th class=\"num\">Fatal hangs</th><th class=\"num\">TTID p50 / p90</th>"
                 + "<th class=\"num\">Adoption</th></tr></thead><tbody>")
        for (total, _) in releases {
            html.raw("<tr><td>")
            html.text(total.name)
            html.raw("</td><td class=\"num\">\(total.sessions)</td><td class=\"num\">\(total.users)</td>")
            html.raw("<td class=\"num\">\(percent(total.crashFreeSessionsPercent))</td><td class=\"num\">\(percent(total.crashFreeUsersPercent))</td>")
            html.raw("<td class=\"num\">\(percent(total.abnormalExitPercent))</td><td class=\"num\">\(number(total.hangRateSecondsPerHour))</td>")
            html.raw("<td class=\"num\">\(percent(total.fatalHangPercent))</td>")
            html.raw("<td class=\"num\">\(milliseconds(total.ttidP50)) / \(milliseconds(total.ttidP90))</td>")
            html.raw("<td class=\"num\">\(percent(total.adoption * 100))</td></tr>")
        }
        html.raw("</tbody></table>")
        if releases.count >= 2 {
            html.raw(comparison(new: releases[0].total, old: releases[1].total))
        }
        // Daily trends: one line per release (the five newest).
        let shown = releases.prefix(5)
        let days = Array(Set(shown.flatMap { $0.days.compactMap(\.day) })).sorted()
        let labels = days.map { day -> String in
            let date = CivilCalendar.date(days: day)
            return String(format: "%02lld-%02lld", date.month, date.day)
        }
        func series(_ value: (ReleaseHealth) -> Double?) -> [SVGChart.Series] {
            shown.map { release in
                SVGChart.Series(name: release.total.name, points: release.days.compactMap { health in
                    guard let day = health.day, let index = days.firstIndex(of: day), let value = value(health) else { return nil }
                    return (index, value)
                })
            }
        }
        html.raw("<h2>Crash-free sessions per day</h2>")
        html.raw(SVGChart.lines(series(\.crashFreeSessionsPercent), xLabels: labels, title: "Crash-free sessions per day", unit: "%"))
        html.raw("<h2>Hang rate per day</h2>")
        html.raw(SVGChart.lines(series(\.hangRateSecondsPerHour), xLabels: labels, title: "Hang rate per day", unit: "s/h"))
        html.raw("<h2>Sessions per day</h2>")
        html.raw(SVGChart.lines(series { Double($0.sessions) }, xLabels: labels, title: "Sessions per day", unit: "sessions"))
        return try page.render(title: "Releases", active: "/releases", body: html.output, note: note(page))
    }

    /// Release health within the page's time range (whole UTC days) and release.
    /// `version` narrows to one release (the overview's latest) when the filter names none.
    static func health(_ page: DashboardPage, version: String? = nil) throws -> [(total: ReleaseHealth, days: [ReleaseHealth])] {
        let days = page.filter.days(now: page.now)
        return try page.context.rollups.releaseHealth(projectID: page.project.id, sinceDay: days.first, untilDay: days.last,
                                                      version: page.filter.release ?? version, dailyUsers: false)
    }

    /// Release health is kept per release and day only: what of the filter it cannot apply.
    static func note(_ page: DashboardPage) -> String? {
        let ignored = [page.filter.osVersion.map { _ in "OS version" }, page.filter.deviceModel.map { _ in "device" },
                       page.filter.page.map { _ in "page" }].compactMap { $0 }
        guard !ignored.isEmpty else { return nil }
        return "Release health is kept per release and day: the \(ignored.joined(separator: ", ")) filter is not applied on this page."
    }

    /// The newest release against the one before it, measure by measure; a change for the
    /// worse beyond a small margin is marked.
    static func comparison(new: ReleaseHealth, old: ReleaseHealth) -> String {
        var html = HTML()
        html.raw("<h2>")
        html.text("\(new.name) against \(old.name)")
        html.raw("</h2><table id=\"release-change\"><thead><tr><th>Measure</th><th class=\"num\">")
        html.text(old.name)
        html.raw("</th><th class=\"num\">")
        html.text(new.name)
        html.raw("</th><th class=\"num\">Change</th></tr></thead><tbody>")
        // (name, old, new, higher is better, unit, margin that counts as a change)
        let rows: [(String, Double?, Double?, Bool, String, Double)] = [
            ("Crash-free sessions", old.crashFreeSessionsPercent, new.crashFreeSessionsPercent, true, " %", 0.1),
            ("Crash-free users", old.crashFreeUsersPercent, new.crashFreeUsersPercent, true, " %", 0.1),
            ("Abnormal exits", old.abnormalExitPercent, new.abnormalExitPercent, false, " %", 0.1),
            ("Hang rate", old.hangRateSecondsPerHour, new.hangRateSecondsPerHour, false, " s/h", 0.05),
            ("Fatal hangs", old.fatalHangPercent, new.fatalHangPercent, false, " %", 0.1),
            ("TTID p90", old.ttidP90, new.ttidP90, false, " ms", 20),
        ]
        for (name, before, after, higherIsBetter, unit, margin) in rows {
            html.raw("<tr><td>")
            html.text(name)
            html.raw("</td><td class=\"num\">\(number(before))\(before == nil ? "" : unit)</td>")
            html.raw("<td class=\"num\">\(number(after))\(after == nil ? "" : unit)</td><td class=\"num\">")
            if let before, let after, abs(after - before) > margin {
                let worse = higherIsBetter ? after < before : after > before
                html.raw("<span class=\"badge \(worse ? "worse" : "better")\">\(String(format: "%+.2f", after - before))\(unit)</span>")
            } else if before != nil, after != nil {
                html.raw("<span class=\"muted\">same</span>")
            }
            html.raw("</td></tr>")
        }
        html.raw("</tbody></table>")
        return html.output
    }

    static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.2f %%", $0) } ?? "–"
    }

    static func number(_ value: Double?) -> String {
        value.map { String(format: "%.2f", $0) } ?? "–"
    }

    static func milliseconds(_ value: Double?) -> String {
        value.map { String(Int64($0.rounded())) + " ms" } ?? "–"
    }
}
