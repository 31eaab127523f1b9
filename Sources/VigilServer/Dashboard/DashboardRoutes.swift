/// The dashboard's pages (filled in with the dashboard).
enum DashboardRoutes {
    static func install(into router: inout HTTPRouter, context: ServerContext) {}
}
