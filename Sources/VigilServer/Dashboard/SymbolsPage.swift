import Foundation

/// `/symbols`: uploaded debug files, and the images events needed symbols for and did not get.
enum SymbolsPage {
    static func render(_ page: DashboardPage) throws -> HTTPResponse {
        let uploaded = try page.context.store.symbolFiles(projectID: page.project.id)
        let missing = try page.context.store.missingSymbols(projectID: page.project.id)
        var html = HTML()
        html.raw("<h2>Needed but not uploaded</h2>")
        DashboardTable.render(missing, columns: [.text("Image"), .text("Debug id"), .text("Arch"), .number("Events"), .text("Last needed")],
                              empty: "Every image that events needed has symbols.", into: &html) { item in
            [.text(item.imageName), .code(item.debugID), .text(item.arch), .markup("\(item.events)"),
             .markup(DashboardPage.time(item.lastSeen))]
        }
        if !missing.isEmpty {
            html.raw("<p class=\"muted\">Find the file with one of these ids: <code>vigil symbols info FILE</code> "
                     + "prints a debug file's ids. Upload it with <code>curl -H 'Authorization: Bearer ADMIN_TOKEN' "
                     + "--data-binary @FILE '/api/v1/symbols?project=")
            html.text(page.project.name)
            html.raw("'</code>; the events that needed it are processed again.</p>")
        }
        html.raw("<h2>Uploaded</h2>")
        DashboardTable.render(uploaded, columns: [.text("Image"), .text("Debug id"), .text("Arch"), .text("Kind"), .number("SymCache"),
                                                  .text("Uploaded")],
                              empty: "Nothing uploaded yet.", into: &html) { item in
            [.text(item.name), .code(item.debugID), .text(item.arch), .text(item.kind), .markup("\(item.size / 1024) KiB"),
             .markup(DashboardPage.time(item.uploadedAt))]
        }
        return try page.render(title: "Symbols", active: "/symbols", body: html.output,
                               note: "Debug files belong to the project as a whole: the time range and filters do not apply here.")
    }
}
