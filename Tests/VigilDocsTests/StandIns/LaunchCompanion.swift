// Stand-ins for the app's own types that docs/launch.md's examples call, compiled beside them.
// Only `VigilLaunch` is imported: what the examples need from elsewhere must come through it.
import VigilLaunch

enum CrashReporter { static func install() {} }
enum Config { static func load() throws {} }
enum Database {
    static func open() throws {}
    static func migrate() throws {}
}
enum Session { static func restore() async throws {} }
@MainActor enum AppWindow { static func showRoot() {} }
enum Analytics { static func start() {} }
enum ImageCache { static func trim() {} }

/// Where the example's launch spans go: an app passes `Vigil.spanRecorder`.
struct AppSpans: SpanRecorder {
    func record(_ span: SpanPayload) {}
}

let spans: any SpanRecorder = AppSpans()

func log(_ message: String) {}
