import Foundation

/// `/compare`: what got worse (or better) between two versions.
enum ComparePage {
    static func render(_ page: DashboardPage) throws -> HTTPResponse {
        let versions = try page.context.rollups.appVersions(projectID: page.project.id)
        let target = page.request.query["target"].flatMap { $0.isEmpty ? nil : $0 } ?? versions.first
        let base = page.request.query["base"].flatMap { $0.isEmpty ? nil : $0 } ?? versions.dropFirst().first
        var html = HTML()
        html.raw("<form method=\"get\" action=\"/compare\"><input type=\"hidden\" name=\"project\" value=\"")
        html.text(page.project.name)
        html.raw("\">")
        for (name, value) in page.filter.queryItems where name != "release" {
            html.raw("<input type=\"hidden\" name=\"\(name)\" value=\"")
            html.text(value)
            html.raw("\">")
        }
        html.raw(" Base <select name=\"base\">")
        for version in versions {
            html.raw("<option\(version == base ? " selected" : "") value=\"")
            html.text(version)
            html.raw("\">")
            html.text(version)
            html.raw("</option>")
        }
        html.raw("</select> → target <select name=\"target\">")
        for version in versions {
            html.raw("<option\(version == target ? " selected" : "") value=\"")
            html.text(version)
            html.raw("\">")
            html.text(version)
            html.raw("</option>")
        }
        html.raw("</select> <button type=\"submit\">Compare</button></form>")
        guard let base, let target else {
            html.raw("<p class=\"empty\">Two app versions are needed for a comparison.</p>")
            return try page.render(title: "Compare versions", active: "/compare", body: html.output, note: note(page))
        }
        let rows = try page.context.insights.compare(projectID: page.project.id, base: base, target: target, filter: page.filter,
                                                     now: page.now)
        html.raw("<table><thead><tr><th>Area</th><th>What</th><th>Measure</th><th class=\"num\">")
        html.text(base)
        html.raw("</th><th class=\"num\">")
        html.text(target)
        html.raw("</th><th class=\"num\">Change</th></tr></thead><tbody>")
        for row in rows {
            html.raw("<tr><td>")
            html.text(row.area)
            html.raw("</td><td>")
            html.text(row.dimension)
            html.raw("</td><td>")
            html.text(row.measure)
            html.raw("</td><td class=\"num\">\(format(row.base))</td><td class=\"num\">\(format(row.target))</td><td class=\"num\">")
            if let change = row.change {
                let better = !row.worse && change < -0.10
                html.raw("<span class=\"badge\(row.worse ? " worse" : better ? " better" : "")\">\(String(format: "%+.0f%%", change * 100))</span>")
            } else if row.worse {
                html.raw("<span class=\"badge worse\">new</span>")
            }
            html.raw("</td></tr>")
        }
        html.raw("</tbody></table>")
        return try page.render(title: "Compare versions", active: "/compare", body: html.output, note: note(page))
    }

    /// The release filter names one version; a comparison names two, and they win.
    static func note(_ page: DashboardPage) -> String? {
        page.filter.release == nil ? nil : "The release filter is not applied here: the two versions compared are chosen above."
    }

    private static func format(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value < 10 ? String(format: "%.3g", value) : String(Int64(value.rounded()))
    }
}
