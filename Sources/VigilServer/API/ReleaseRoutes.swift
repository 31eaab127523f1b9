import Foundation
import VigilCore

/// `GET /api/v1/releases`: release health per release (app version and build) — sessions by
/// outcome, distinct users, crash-free sessions and users, abnormal-exit, fatal-hang and hang
/// rates, cold-launch TTID, adoption — over the last `days` (default 30, 1…366) with a series
/// per day, newest release first; for the admin token. Query: `days`, `project`, and the
/// time range and release of a ``DashboardFilter`` (`range`, `from`, `to`, `release`).
enum ReleaseRoutes {
    /// One release's figures as the API writes them.
    struct Figures: Encodable {
        var version: String
        var build: String
        var day: String?
        var sessions: Int64
        var outcomes: [String: Int64]
        var users: Int64
        var crashedUsers: Int64
        var crashFreeSessionsPercent: Double?
        var crashFreeUsersPercent: Double?
        var abnormalExitPercent: Double?
        var fatalHangPercent: Double?
        var hangRateSecondsPerHour: Double?
        var hangSeconds: Double
        var foregroundHours: Double
        var ttidP50Ms: Double?
        var ttidP90Ms: Double?
        var adoptionPercent: Double

        init(_ health: ReleaseHealth) {
            version = health.version
            build = health.build
            day = health.day.map { day in
                let date = CivilCalendar.date(days: day)
                return String(format: "%04lld-%02lld-%02lld", date.year, date.month, date.day)
            }
            sessions = health.sessions
            outcomes = Dictionary(uniqueKeysWithValues: SessionOutcome.allCases.map { ($0.rawValue, health.outcomes[$0] ?? 0) })
            users = health.users
            crashedUsers = health.crashedUsers
            crashFreeSessionsPercent = health.crashFreeSessionsPercent
            crashFreeUsersPercent = health.crashFreeUsersPercent
            abnormalExitPercent = health.abnormalExitPercent
            fatalHangPercent = health.fatalHangPercent
            hangRateSecondsPerHour = health.hangRateSecondsPerHour
            hangSeconds = health.hangMs / 1000
            foregroundHours = health.foregroundMs / 3_600_000
            ttidP50Ms = health.ttidP50
            ttidP90Ms = health.ttidP90
            adoptionPercent = health.adoption * 100
        }
    }

    struct Release: Encodable {
        var total: Figures
        var days: [Figures]
    }

    struct Answer: Encodable {
        var days: Int
        var releases: [Release]
    }

    static func install(into router: inout HTTPRouter, context: ServerContext) {
        router.add("GET", "/api/v1/releases", name: "releases") { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let days = try self.days(request)
            let filter = try context.dashboardFilter(request, defaultRange: .recent(hours: days * 24))
            let span = filter.days(now: context.clock.wallNow())
            let releases = try context.rollups.releaseHealth(projectID: project.id, sinceDay: span.first, untilDay: span.last,
                                                           version: filter.release)
            return .json(encoding: Answer(days: days, releases: releases.map {
                Release(total: Figures($0.total), days: $0.days.map(Figures.init))
            }))
        }
    }

    static func days(_ request: HTTPRequest) throws -> Int {
        guard let text = request.query["days"] else { return 30 }
        guard let days = Int(text), (1...366).contains(days) else {
            throw HTTPError.badRequest("days must be 1…366", code: "bad_days")
        }
        return days
    }
}
