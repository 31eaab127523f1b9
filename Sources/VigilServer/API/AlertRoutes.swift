import Foundation

/// The alert endpoints (documented in `docs/api.md`, "Alerts"), for the admin token:
/// `GET/POST /api/v1/alerts/rules`, `DELETE /api/v1/alerts/rules/:id`, `GET /api/v1/alerts`
/// (the outbox: each alert and its state) and `GET /api/v1/alerts/deliveries` (every attempt);
/// and the dashboard's `/alerts` page with its two forms (add a rule, delete a rule).
enum AlertRoutes {
    /// A rule as the API shows it (the secret included: the admin needs it to verify deliveries).
    struct RuleAnswer: Encodable {
        var id: Int64
        var name: String
        var kind: String
        var threshold: Double?
        var minSessions: Int64?
        var cooldownMinutes: Double
        var url: String
        var secret: String
        var enabled: Bool
        var createdAt: Date

        init(_ rule: AlertRule) {
            id = rule.id
            name = rule.name
            kind = rule.kind.rawValue
            threshold = rule.threshold
            minSessions = rule.minSessions
            cooldownMinutes = Double(rule.cooldownSeconds) / 60
            url = rule.url
            secret = rule.secret
            enabled = rule.enabled
            createdAt = rule.createdAt
        }
    }

    static func install(into router: inout HTTPRouter, context: ServerContext) {
        let admin = context.adminCheck
        let ruleBody = BodyPolicy(maxBytes: 16 * 1024, acceptsGzip: false)

        router.add("GET", "/api/v1/alerts/rules", name: "alert-rules", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            struct Answer: Encodable { var rules: [RuleAnswer] }
            return .json(encoding: Answer(rules: try context.store.alertRules(projectID: project.id).map(RuleAnswer.init)))
        }

        router.add("POST", "/api/v1/alerts/rules", name: "alert-rules", body: ruleBody, authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let draft: AlertRuleDraft
            do {
                draft = try JSONDecoder().decode(AlertRuleDraft.self, from: request.bodyData)
            } catch {
                throw HTTPError.badRequest("the body must be a JSON object with name, kind and url (and threshold, minSessions, "
                                           + "cooldownMinutes where they apply): \(error)", code: "malformed_rule")
            }
            let rule = try create(draft, project: project, context: context)
            return .json(encoding: RuleAnswer(rule), status: 201)
        }

        router.add("DELETE", "/api/v1/alerts/rules/:id", name: "alert-rules", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            try delete(request.pathParameters["id"], project: project, context: context)
            return HTTPResponse(status: 204)
        }

        router.add("GET", "/api/v1/alerts", name: "alerts", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            struct Answer: Encodable { var alerts: [AlertRecord] }
            return .json(encoding: Answer(alerts: try context.store.alerts(projectID: project.id, limit: limit(request))))
        }

        router.add("GET", "/api/v1/alerts/deliveries", name: "alerts", authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            struct Answer: Encodable { var deliveries: [AlertDeliveryRecord] }
            return .json(encoding: Answer(deliveries: try context.store.alertDeliveries(projectID: project.id, limit: limit(request))))
        }

        // The dashboard's forms: a session cookie and its CSRF token, as every dashboard form.
        let formBody = BodyPolicy(maxBytes: 16 * 1024, acceptsGzip: false)
        router.add("POST", "/alerts/rules", name: "dashboard", body: formBody) { request in
            let form = DashboardRoutes.formFields(request.bodyData)
            guard context.authenticator.isValidDashboardPost(request, csrf: form["csrf"]) else {
                throw HTTPError(status: 403, code: "forbidden", reason: "the form needs a dashboard session and its CSRF token")
            }
            let project = try context.project(for: request)
            let draft = AlertRuleDraft(name: form["name"] ?? "", kind: form["kind"] ?? "", url: form["url"] ?? "",
                                       threshold: form["threshold"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) },
                                       minSessions: form["minSessions"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) },
                                       cooldownMinutes: form["cooldownMinutes"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) })
            _ = try create(draft, project: project, context: context)
            return .redirect(to: alertsPath(project: project, context: context))
        }

        router.add("POST", "/alerts/rules/:id/delete", name: "dashboard", body: formBody) { request in
            let form = DashboardRoutes.formFields(request.bodyData)
            guard context.authenticator.isValidDashboardPost(request, csrf: form["csrf"]) else {
                throw HTTPError(status: 403, code: "forbidden", reason: "the form needs a dashboard session and its CSRF token")
            }
            let project = try context.project(for: request)
            try delete(request.pathParameters["id"], project: project, context: context)
            return .redirect(to: alertsPath(project: project, context: context))
        }
    }

    private static func create(_ draft: AlertRuleDraft, project: Project, context: ServerContext) throws -> AlertRule {
        do {
            return try context.store.createAlertRule(projectID: project.id, draft, now: context.clock.wallNow())
        } catch let error as AlertRuleError {
            throw HTTPError.badRequest("\(error)", code: "invalid_rule")
        }
    }

    private static func delete(_ text: String?, project: Project, context: ServerContext) throws {
        guard let id = text.flatMap(Int64.init) else { throw HTTPError.notFound("no such alert rule") }
        do {
            try context.store.deleteAlertRule(projectID: project.id, id: id)
        } catch let error as AlertRuleError {
            throw HTTPError.notFound("\(error)")
        }
    }

    private static func limit(_ request: HTTPRequest) -> Int {
        request.query["limit"].flatMap(Int.init).map { max(1, min($0, 1000)) } ?? 100
    }

    private static func alertsPath(project: Project, context: ServerContext) -> String {
        project.name == context.options.defaultProject ? "/alerts" : "/alerts?project=" + HTML.queryComponent(project.name)
    }
}
