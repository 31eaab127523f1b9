import Foundation
import VigilCore

/// What every dashboard page shares: the project, the request's filters, the navigation and
/// the page shell (inline CSS, no scripts, no external resources).
struct DashboardPage {
    let context: ServerContext
    let request: HTTPRequest
    let project: Project
    let projects: [Project]
    /// The time range and filters of the request (``DashboardFilter``), carried by every link.
    let filter: DashboardFilter
    /// The wall time the page is computed at.
    let now: Date

    init(context: ServerContext, request: HTTPRequest) throws {
        self.context = context
        self.request = request
        self.project = try context.project(for: request)
        self.projects = try context.store.projects()
        do {
            self.filter = try DashboardFilter(query: request.query)
        } catch {
            throw HTTPError.badRequest("\(error)", code: "bad_filter")
        }
        self.now = context.clock.wallNow()
    }

    /// Query parameters that belong to the filter (and the project), not to a page.
    static let filterParameters: Set<String> = ["project", "range", "from", "to", "days", "release", "version", "os", "device", "page"]

    /// A dashboard link keeping the project, the filter (`filter`, the page's own by default)
    /// and `extra` query arguments.
    func link(_ path: String, _ extra: [(String, String)] = [], filter: DashboardFilter? = nil) -> String {
        var query = [("project", project.name)] + (filter ?? self.filter).queryItems + extra
        if project.name == context.options.defaultProject { query.removeFirst() }
        let text = query.map { "\(HTML.queryComponent($0.0))=\(HTML.queryComponent($0.1))" }.joined(separator: "&")
        return HTML.escape(text.isEmpty ? path : "\(path)?\(text)")
    }

    /// The request's own query arguments that are not the filter's (an issue list's sort, a
    /// comparison's versions), in name order, so that a changed filter keeps them.
    var pageArguments: [(String, String)] {
        request.query.filter { !Self.filterParameters.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The filter bar: a form (plain GET, no script) choosing the range and the filters, and
    /// the filters in force as chips, each a link to this view without it.
    func filterBar() throws -> String {
        var html = HTML()
        html.raw("<form method=\"get\" action=\"\(HTML.escape(request.path))\" class=\"filters\" id=\"filters\">")
        if project.name != context.options.defaultProject {
            html.raw("<input type=\"hidden\" name=\"project\" value=\"")
            html.text(project.name)
            html.raw("\">")
        }
        for (name, value) in pageArguments {
            html.raw("<input type=\"hidden\" name=\"")
            html.text(name)
            html.raw("\" value=\"")
            html.text(value)
            html.raw("\">")
        }
        html.raw("<label>Time <select name=\"range\">")
        var matched = false
        for preset in DashboardFilter.presets {
            let chosen = preset.range == filter.range
            matched = matched || chosen
            let value = DashboardFilter(range: preset.range).queryItems.first?.1 ?? "30d"
            html.raw("<option value=\"\(value)\"\(chosen ? " selected" : "")>\(preset.label)</option>")
        }
        if case .recent = filter.range, !matched {
            html.raw("<option value=\"")
            html.text(filter.queryItems.first { $0.0 == "range" }?.1 ?? "")
            html.raw("\" selected>")
            html.text(filter.rangeLabel)
            html.raw("</option>")
        }
        var from = "", to = ""
        if case .custom = filter.range {
            from = filter.queryItems.first { $0.0 == "from" }?.1 ?? ""
            to = filter.queryItems.first { $0.0 == "to" }?.1 ?? ""
        }
        html.raw("<option value=\"custom\"\(from.isEmpty ? "" : " selected")>Custom (from – to)</option></select></label>")
        html.raw("<label>from <input type=\"date\" name=\"from\" value=\"")
        html.text(from.count == 10 ? from : String(from.prefix(10)))
        html.raw("\"></label><label>to <input type=\"date\" name=\"to\" value=\"")
        html.text(to.count == 10 ? to : String(to.prefix(10)))
        html.raw("\"></label>")
        let aggregates = EventAggregates(store: context.store)
        let choices: [(String, String, String?, [String])] = [
            ("release", "Release", filter.release, try context.rollups.appVersions(projectID: project.id)),
            ("os", "OS version", filter.osVersion, try aggregates.distinctValues(projectID: project.id, column: "os_version")),
            ("device", "Device", filter.deviceModel, try aggregates.distinctValues(projectID: project.id, column: "device_model")),
            ("page", "Page", filter.page, try context.store.rollupDimensions(projectID: project.id, metrics: ["hang", "frames.windows"])),
        ]
        for (name, label, current, values) in choices {
            html.raw("<label>\(label) <select name=\"\(name)\"><option value=\"\">all</option>")
            var options = values
            if let current, !options.contains(current) { options.insert(current, at: 0) }
            for value in options {
                html.raw("<option value=\"")
                html.text(value)
                html.raw("\"\(value == current ? " selected" : "")>")
                html.text(value)
                html.raw("</option>")
            }
            html.raw("</select></label>")
        }
        html.raw("<button type=\"submit\">Apply</button></form><p class=\"chips\" id=\"chips\">")
        for chip in filter.chips {
            let removable = chip.facet != .range || filter.range != DashboardFilter.defaultRange
            if removable {
                html.raw("<a class=\"chip\" data-facet=\"\(chip.facet.rawValue)\" href=\"\(link(request.path, pageArguments, filter: filter.removing(chip.facet)))\" "
                         + "title=\"Remove this filter\">")
                html.text(chip.label)
                html.raw(" <span aria-hidden=\"true\">×</span></a>")
            } else {
                html.raw("<span class=\"chip\" data-facet=\"\(chip.facet.rawValue)\">")
                html.text(chip.label)
                html.raw("</span>")
            }
        }
        html.raw("</p>")
        return html.output
    }

    static let sections: [(path: String, title: String)] = [
        ("/", "Overview"), ("/releases", "Releases"), ("/issues", "Issues"), ("/hangs", "Hangs"), ("/network", "Network"),
        ("/launch", "Launch"), ("/frames", "Frames"), ("/compare", "Compare"), ("/symbols", "Symbols"), ("/alerts", "Alerts"),
    ]

    /// The whole page around `body`, with the filter bar above it; `note` says, when a page
    /// cannot apply part of the filter, which part.
    func render(title: String, active: String, body: String, note: String? = nil) throws -> HTTPResponse {
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
        html.raw(try filterBar())
        if let note {
            html.raw("<p class=\"muted\" id=\"filter-note\">")
            html.text(note)
            html.raw("</p>")
        }
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
        form.filters{display:flex;gap:10px;flex-wrap:wrap;align-items:center;background:#fff;padding:8px 12px;box-shadow:0 1px 2px #0001}
        form.filters select,form.filters input{font:inherit;max-width:200px}
        .chips{margin:8px 0 4px}.chip{display:inline-block;margin:0 6px 4px 0;padding:2px 10px;border-radius:12px;background:#dfe7f5;color:#1d2330;text-decoration:none}
        a.chip:hover{background:#fbd5d5}
        """
}
