import Foundation

/// `GET /api/v1/network/breakdown`: requests by template with phases and error rate, by app
/// version and by network type (``NetworkBreakdown``), for the admin token. Query: `template`
/// (`METHOD urlTemplate`, optional), `version`, `days` (default 7), `project`.
enum NetworkRoutes {
    static func install(into router: inout HTTPRouter, context: ServerContext) {
        router.add("GET", "/api/v1/network/breakdown", name: "network-breakdown", authorize: context.adminCheck) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let days = request.query["days"].flatMap(Int.init) ?? 7
            guard (1...366).contains(days) else { throw HTTPError.badRequest("days must be 1…366", code: "bad_days") }
            let result = try NetworkBreakdown(store: context.store).breakdown(
                projectID: project.id, template: request.query["template"].flatMap { $0.isEmpty ? nil : $0 },
                version: request.query["version"].flatMap { $0.isEmpty ? nil : $0 }, days: days, now: context.clock.wallNow())
            return .json(encoding: result)
        }
    }
}
