import Foundation
import VigilCore

/// What every dashboard page shares: the project, the request's filters, the navigation and
/// the page shell (inline CSS, no scripts, no external resources).
struct DashboardPage {
    let context: ServerContext
    let request: HTTPRequest
    let project: Project
    let projects: [Project]

    init(context: ServerContext, request: HTTPRequest) throws {
        self.context = context
        self.request = request
        self.project = try context.project(for: request)
        self.projects = try context.store.projects()
    }

    /// A dashboard link keeping the project (and `extra` query arguments).
    func link(_ path: String, _ extra: [(String, String)] = []) -> String {
        var query = [("project", project.name)] + extra
        if project.name == context.options.defaultProject { query.removeFirst() }
        let text = query.map { "\(HTML.queryComponent($0.0))=\(HTML.queryComponent($0.1))" }.joined(separator: "&")
        return HTML.escape(text.isEmpty ? path : "\(path)?\(text)")
    }

    static let sections: [(path: String, title: String)] = [
        ("/", "Overview"), ("/releases", "Releases"), ("/issues", "Issues"), ("/hangs", "Hangs"), ("/network", "Network"),
        ("/launch", "Launch"), ("/frames", "Frames"), ("/compare", "Compare"), ("/symbols", "Symbols"), ("/alerts", "Alerts"),
    ]

    /// The whole page around `body`.
    func render(title: String, active: String, body: String) -> HTTPResponse {
        var html = HTML()
        html.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
        html.text(title)
        html.raw(" · Vigil</title><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>")
        html.raw(Self.css)
        html.raw("</style></head><body><header><a class=\"brand\" href=\"\(link("/"))\">Vigil</a><nav>")
        for section in Self.sections {
            html.raw("<a href=\"\(link(section.path))\"\(section.path == active ? " class=\"active\"" : "")>")
            html.text(section.title)
            html.raw("</a>")
        }
        html.raw("</nav><form method=\"get\" action=\"\(HTML.escape(active))\" class=\"project\"><select name=\"project\" aria-label=\"project\">")
        for candidate in projects {
            html.raw("<option value=\"")
            html.text(candidate.name)
            html.raw("\"\(candidate.id == project.id ? " selected" : "")>")
            html.text(candidate.name)
            html.raw("</option>")
        }
        html.raw("</select><button type=\"submit\">Go</button></form>")
        html.raw("<form method=\"post\" action=\"/logout\" class=\"logout\"><button type=\"submit\">Log out</button></form></header><main><h1>")
        html.text(title)
        html.raw("</h1>")
        html.raw(body)
        html.raw("</main><footer>Vigil \(HTML.escape(VigilVersion.string)) · project ")
        html.text(project.name)
        html.raw(" · \(HTML.escape(context.store.dialect.rawValue))</footer></body></html>")
        return .html(html.output)
    }

    /// `2026-11-29 20:48` (UTC).
    static func time(_ date: Date) -> String {
        let text = Timestamp.format(date)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }

    /// Milliseconds for a table: `1,234 ms`, or `–`.
    static func ms(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return value >= 100 ? "\(Int64(value.rounded())) ms" : String(format: "%.1f ms", value)
    }

    /// A ratio as a percentage.
    static func percent(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.1f%%", value * 100)
    }

    static let css = """
        body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
        header{display:flex;align-items:center;gap:18px;background:#1d2330;color:#fff;padding:8px 20px;flex-wrap:wrap}
        header a{color:#cfd6e4;text-decoration:none}header a.active,header a:hover{color:#fff;text-decoration:underline}
        .brand{font-weight:700;font-size:18px;color:#fff!important}nav{display:flex;gap:14px;flex-wrap:wrap}
        form.project{margin-left:auto}form.project select,button{font:inherit}
        main{padding:16px 24px;max-width:1200px}h1{font-size:22px;margin:8px 0 16px}h2{font-size:17px;margin:22px 0 8px}
        table{border-collapse:collapse;background:#fff;width:100%;margin:8px 0 16px;box-shadow:0 1px 2px #0001}
        th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #e5e7ec;vertical-align:top}th{background:#eef0f4;font-weight:600}
        td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
        tr.inapp td{background:#fff6dc;font-weight:600}tr.inlined td.fn{padding-left:28px;font-style:italic}
        .badge{display:inline-block;padding:1px 7px;border-radius:9px;font-size:12px;background:#e5e7ec}
        .badge.crash{background:#fbd5d5;color:#8a1c1c}.badge.hang{background:#fde8c8;color:#7a4a00}
        .badge.state-resolved{background:#d4f2dc;color:#1b6b33}.badge.state-ignored{background:#e5e7ec;color:#555}
        .badge.state-regressed,.regression{background:#fbd5d5;color:#8a1c1c}.regression{padding:1px 7px;border-radius:9px}
        .workflow .actions{display:flex;flex-wrap:wrap;gap:6px}.workflow form.state{display:inline-flex;gap:4px;margin:0}
        .badge.worse{background:#fbd5d5;color:#8a1c1c}.badge.better{background:#d4f2dc;color:#1b6b33}
        .cards{display:flex;gap:12px;flex-wrap:wrap}.card{background:#fff;padding:10px 16px;box-shadow:0 1px 2px #0001;min-width:120px}
        .card b{display:block;font-size:22px}.muted,.empty{color:#6b7385}code{background:#eef0f4;padding:1px 4px}
        svg.chart{background:#fff;box-shadow:0 1px 2px #0001;max-width:100%;height:auto}svg.chart text{font-size:12px;fill:#1d2330}
        .tabs a{margin-right:12px}.tabs a.active{font-weight:700}footer{padding:16px 24px;color:#6b7385}
        pre{white-space:pre-wrap;background:#fff;padding:10px}
        """
}
