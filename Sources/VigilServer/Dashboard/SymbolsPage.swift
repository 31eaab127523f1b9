import Foundation

/// `/symbols`: uploaded debug files, and the images events needed symbols for and did not get.
enum SymbolsPage {
    static func render(_ page: DashboardPage) throws -> HTTPResponse {
        let uploaded = try page.context.store.symbolFiles(projectID: page.project.id)
        let missing = try page.context.store.missingSymbols(projectID: page.project.id)
        var html = HTML()
        html.raw("<h2>Needed but not uploaded</h2>")
        if missing.isEmpty {
            html.raw("<p class=\"empty\">Every image that events needed has symbols.</p>")
        } else {
            html.raw("<table><thead><tr><th>Image</th><th>Debug id</th><th>Arch</th><th class=\"num\">Events</th><th>Last needed</th>"
                     + "</tr></thead><tbody>")
            for item in missing {
                html.raw("<tr><td>")
                html.text(item.imageName)
                html.raw("</td><td><code>")
                html.text(item.debugID)
                html.raw("</code></td><td>")
                html.text(item.arch)
                html.raw("</td><td class=\"num\">\(item.events)</td><td>\(DashboardPage.time(item.lastSeen))</td></tr>")
            }
            html.raw("</tbody></table><p class=\"muted\">Find the file with one of these ids: <code>vigil symbols info FILE</code> "
                     + "prints a debug file's ids. Upload it with <code>curl -H 'Authorization: Bearer ADMIN_TOKEN' "
                     + "--data-binary @FILE '/api/v1/symbols?project=")
            html.text(page.project.name)
            html.raw("'</code>; the events that needed it are processed again.</p>")
        }
        html.raw("<h2>Uploaded</h2>")
        if uploaded.isEmpty {
            html.raw("<p class=\"empty\">Nothing uploaded yet.</p>")
        } else {
            html.raw("<table><thead><tr><th>Image</th><th>Debug id</th><th>Arch</th><th>Kind</th><th class=\"num\">SymCache</th>"
                     + "<th>Uploaded</th></tr></thead><tbody>")
            for item in uploaded {
                html.raw("<tr><td>")
                html.text(item.name)
                html.raw("</td><td><code>")
                html.text(item.debugID)
                html.raw("</code></td><td>")
                html.text(item.arch)
                html.raw("</td><td>")
                html.text(item.kind)
                html.raw("</td><td class=\"num\">\(item.size / 1024) KiB</td><td>\(DashboardPage.time(item.uploadedAt))</td></tr>")
            }
            html.raw("</tbody></table>")
        }
        return try page.render(title: "Symbols", active: "/symbols", body: html.output,
                               note: "Debug files belong to the project as a whole: the time range and filters do not apply here.")
    }
}
