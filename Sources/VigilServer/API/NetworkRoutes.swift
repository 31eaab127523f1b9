import Foundation

/// `GET /api/v1/network/breakdown`: requests by template with phases and error rate, by app
/// version and by network type (``NetworkBreakdown``), for the admin token. Query: `template`
/// (`METHOD urlTemplate`, optional), `project`, and a ``DashboardFilter`` (default: the last 7 days).
enum NetworkRoutes {
    static func install(into router: inout HTTPRouter, context: ServerContext) {
        router.add("GET", "/api/v1/network/breakdown", name: "network-breakdown", authorize: context.adminCheck) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let filter = try context.dashboardFilter(request, defaultRange: .recent(hours: 7 * 24))
            let result = try context.networkBreakdown.breakdown(
                projectID: project.id, template: request.query["template"].flatMap { $0.isEmpty ? nil : $0 },
                filter: filter, now: context.clock.wallNow())
            return .json(encoding: result)
        }
    }
}
