import Foundation

/// The issue workflow's endpoints: `POST /api/v1/issues/:id/resolve`, `…/ignore`, `…/reopen`
/// (admin token as a bearer token) and `GET /api/v1/issues/:id/audit` (documented in
/// `docs/api.md`); and the parsing of an action's fields, which the dashboard's forms share.
enum IssueStateRoutes {
    static func install(into router: inout HTTPRouter, context: ServerContext) {
        let body = BodyPolicy(maxBytes: 8 * 1024, acceptsGzip: false)
        for verb in ["resolve", "ignore", "reopen"] {
            router.add("POST", "/api/v1/issues/:id/\(verb)", name: "issue-state", body: body, authorize: context.adminCheck) { request in
                // A state change through the API takes the token itself: a session cookie alone
                // could be sent by another site's page; the dashboard's forms carry a CSRF token.
                guard let token = request.bearerToken, context.authenticator.isAdminToken(token) else {
                    throw HTTPError.unauthorized("changing an issue's state through the API needs Authorization: Bearer <admin token>")
                }
                let project = try context.project(for: request)
                guard let id = request.pathParameters["id"].flatMap(Int64.init) else { throw HTTPError.notFound("no such issue") }
                let action = try Self.action(verb, fields: try Self.jsonFields(request.bodyData))
                let state: IssueState?
                do {
                    state = try context.store.changeIssueState(projectID: project.id, issueID: id, action: action,
                                                               actor: "admin token", now: context.clock.wallNow())
                } catch let error as IssueActionError {
                    throw HTTPError.badRequest(error.description, code: "invalid_action")
                }
                guard let state else {
                    throw HTTPError.notFound("no issue \(id) in project \(project.name)")
                }
                struct Answer: Encodable { var id: Int64; var state: IssueState; var summary: String }
                let events = try context.store.issue(projectID: project.id, id: id)?.summary.events ?? 0
                return .json(encoding: Answer(id: id, state: state, summary: state.summary(currentEvents: events, now: context.clock.wallNow())))
            }
        }
        router.add("GET", "/api/v1/issues/:id/audit", name: "issue-audit", authorize: context.adminCheck) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            guard let id = request.pathParameters["id"].flatMap(Int64.init) else { throw HTTPError.notFound("no such issue") }
            struct Answer: Encodable { var audit: [IssueAuditEntry] }
            return .json(encoding: Answer(audit: try context.store.issueAudit(projectID: project.id, issueID: id)))
        }
    }

    /// The action `verb` (`resolve`, `ignore`, `reopen`) with its fields:
    /// resolve — `in=next-release`, or `version=X`, or nothing (plain);
    /// ignore — `events=N`, or `until=` an ISO 8601 date or time, or nothing (forever).
    static func action(_ verb: String, fields: [String: String]) throws -> IssueAction {
        func field(_ name: String) -> String? {
            fields[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        switch verb {
        case "resolve":
            if let place = field("in") {
                guard place == "next-release" else { throw HTTPError.badRequest("in: expected next-release, or give version instead") }
                return .resolveInNextRelease
            }
            if let version = field("version") {
                guard version.count <= 200 else { throw HTTPError.badRequest("version: at most 200 characters") }
                return .resolveInVersion(version)
            }
            return .resolve
        case "ignore":
            if let text = field("events") {
                guard let count = Int64(text), count >= 1, count <= 1_000_000_000 else {
                    throw HTTPError.badRequest("events: expected a whole number from 1 to 1000000000")
                }
                return .ignoreUntilEvents(count)
            }
            if let text = field("until") {
                guard let date = parseDate(text) else {
                    throw HTTPError.badRequest("until: expected an ISO 8601 date (2026-12-31) or time (2026-12-31T12:00:00Z)")
                }
                return .ignoreUntil(date)
            }
            return .ignore
        case "reopen":
            return .reopen
        default:
            throw HTTPError.badRequest("action: expected resolve, ignore or reopen")
        }
    }

    /// A JSON object body's fields as text (numbers written plainly); an empty body has none.
    static func jsonFields(_ body: Data) throws -> [String: String] {
        guard body.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw HTTPError.badRequest("the body must be a JSON object (or empty)", code: "malformed_body")
        }
        var fields: [String: String] = [:]
        for (name, value) in object {
            switch value {
            case let text as String: fields[name] = text
            case let number as NSNumber:
                fields[name] = number.doubleValue == number.doubleValue.rounded() && abs(number.doubleValue) < 1e15
                    ? String(Int64(number.doubleValue)) : number.stringValue
            case is NSNull: continue
            default: throw HTTPError.badRequest("\(name.prefix(40)): expected a string or a number")
            }
        }
        return fields
    }

    /// `2026-12-31` (midnight UTC) or an ISO 8601 time with a zone.
    static func parseDate(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: text)
    }
}
