import Foundation

/// The alert endpoints (documented in `docs/api.md`, "Alerts"), for the admin token:
/// `GET/POST /api/v1/alerts/rules`, `POST /api/v1/alerts/rules/:id` (edit),
/// `POST /api/v1/alerts/rules/:id/pause` and `…/resume`, `DELETE /api/v1/alerts/rules/:id`,
/// `GET /api/v1/alerts` (the outbox: each alert and its state) and `GET /api/v1/alerts/deliveries`
/// (every attempt); and the dashboard's `/alerts` page with its forms (add, edit, pause, resume,
/// delete a rule).
enum AlertRoutes {
    /// A rule as the API shows it (the secret included: the admin needs it to verify deliveries).
    struct RuleAnswer: Encodable {
        var id: Int64
        var name: String
        var kind: String
        var threshold: Double?
        var minSessions: Int64?
        var cooldownMinutes: Double
        var windowMinutes: Double?
        var url: String
        var secret: String
        var enabled: Bool
        var createdAt: Date
        var resumedAt: Date?

        init(_ rule: AlertRule) {
            id = rule.id
            name = rule.name
            kind = rule.kind.rawValue
            threshold = rule.threshold
            minSessions = rule.minSessions
            cooldownMinutes = Double(rule.cooldownSeconds) / 60
            windowMinutes = rule.windowSeconds.map { Double($0) / 60 }
            url = rule.url
            secret = rule.secret
            enabled = rule.enabled
            createdAt = rule.createdAt
            resumedAt = rule.resumedAt
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

        router.add("POST", "/api/v1/alerts/rules/:id", name: "alert-rules", body: ruleBody, authorize: admin) { request in
            try context.requireAdmin(request)
            let project = try context.project(for: request)
            let change = try Self.change(fromJSON: request.bodyData)
            return .json(encoding: RuleAnswer(try edit(request.pathParameters["id"], change, project: project, context: context)))
        }

        for (verb, paused) in [("pause", true), ("resume", false)] {
            router.add("POST", "/api/v1/alerts/rules/:id/\(verb)", name: "alert-rules", authorize: admin) { request in
                try context.requireAdmin(request)
                let project = try context.project(for: request)
                return .json(encoding: RuleAnswer(try pause(request.pathParameters["id"], paused: paused, project: project,
                                                            context: context)))
            }
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
                                       cooldownMinutes: form["cooldownMinutes"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) },
                                       windowMinutes: form["windowMinutes"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) })
            _ = try create(draft, project: project, context: context)
            return .redirect(to: alertsPath(project: project, context: context))
        }

        router.add("POST", "/alerts/rules/:id/edit", name: "dashboard", body: formBody) { request in
            let form = DashboardRoutes.formFields(request.bodyData)
            guard context.authenticator.isValidDashboardPost(request, csrf: form["csrf"]) else {
                throw HTTPError(status: 403, code: "forbidden", reason: "the form needs a dashboard session and its CSRF token")
            }
            let project = try context.project(for: request)
            _ = try edit(request.pathParameters["id"], try change(fromForm: form), project: project, context: context)
            return .redirect(to: alertsPath(project: project, context: context))
        }

        for (verb, paused) in [("pause", true), ("resume", false)] {
            router.add("POST", "/alerts/rules/:id/\(verb)", name: "dashboard", body: formBody) { request in
                let form = DashboardRoutes.formFields(request.bodyData)
                guard context.authenticator.isValidDashboardPost(request, csrf: form["csrf"]) else {
                    throw HTTPError(status: 403, code: "forbidden", reason: "the form needs a dashboard session and its CSRF token")
                }
                let project = try context.project(for: request)
                _ = try pause(request.pathParameters["id"], paused: paused, project: project, context: context)
                return .redirect(to: alertsPath(project: project, context: context))
            }
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

    /// The fields an edit may carry; anything else (`kind`, a misspelt field) is refused rather
    /// than ignored, so a client never believes it changed what it did not.
    static let editableFields: Set<String> = ["name", "url", "threshold", "minSessions", "cooldownMinutes", "windowMinutes"]

    /// An edit from a JSON object of some of ``editableFields``.
    static func change(fromJSON body: Data) throws -> AlertRuleChange {
        let malformed = "the body must be a JSON object with some of \(editableFields.sorted().joined(separator: ", "))"
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw HTTPError.badRequest(malformed, code: "malformed_rule")
        }
        if let other = object.keys.sorted().first(where: { !editableFields.contains($0) }) {
            throw HTTPError.badRequest(other == "kind" ? "kind: a rule's kind cannot change; delete it and make a new one"
                                       : "\(other): not a field an edit can change (\(editableFields.sorted().joined(separator: ", ")))",
                                       code: "invalid_rule")
        }
        let change: AlertRuleChange
        do {
            change = try JSONDecoder().decode(AlertRuleChange.self, from: body)
        } catch {
            throw HTTPError.badRequest("\(malformed): \(error)", code: "malformed_rule")
        }
        guard !change.isEmpty else { throw HTTPError.badRequest("nothing to change: \(malformed)", code: "invalid_rule") }
        return change
    }

    /// An edit from the Alerts page's form: an empty field keeps its value; a number that does
    /// not parse is refused.
    static func change(fromForm form: [String: String]) throws -> AlertRuleChange {
        func text(_ name: String) -> String? {
            form[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        func number<T: LosslessStringConvertible>(_ name: String, _: T.Type) throws -> T? {
            guard let value = text(name) else { return nil }
            guard let parsed = T(value) else { throw HTTPError.badRequest("\(name): not a number", code: "invalid_rule") }
            return parsed
        }
        let change = AlertRuleChange(name: text("name"), url: text("url"), threshold: try number("threshold", Double.self),
                                     minSessions: try number("minSessions", Int64.self),
                                     cooldownMinutes: try number("cooldownMinutes", Double.self),
                                     windowMinutes: try number("windowMinutes", Double.self))
        guard !change.isEmpty else { throw HTTPError.badRequest("nothing to change", code: "invalid_rule") }
        return change
    }

    private static func edit(_ text: String?, _ change: AlertRuleChange, project: Project, context: ServerContext) throws -> AlertRule {
        guard let id = text.flatMap(Int64.init) else { throw HTTPError.notFound("no such alert rule") }
        do {
            return try context.store.updateAlertRule(projectID: project.id, id: id, change)
        } catch AlertRuleError.unknown(let id) {
            throw HTTPError.notFound("\(AlertRuleError.unknown(id))")
        } catch let error as AlertRuleError {
            throw HTTPError.badRequest("\(error)", code: "invalid_rule")
        }
    }

    private static func pause(_ text: String?, paused: Bool, project: Project, context: ServerContext) throws -> AlertRule {
        guard let id = text.flatMap(Int64.init) else { throw HTTPError.notFound("no such alert rule") }
        do {
            return try context.store.setAlertRulePaused(projectID: project.id, id: id, paused: paused, now: context.clock.wallNow())
        } catch let error as AlertRuleError {
            throw HTTPError.notFound("\(error)")
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
