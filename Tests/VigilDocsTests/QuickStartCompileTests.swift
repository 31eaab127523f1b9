import Foundation
import Testing
import VigilTestSupport

/// The README's quick start and docs/launch.md's examples compile, verbatim, against this
/// checkout: a change of the public API that breaks them fails here.
@Suite("documentation snippets compile", .serialized)
struct QuickStartCompileTests {
    static let root = BuildProducts.packageRoot

    @Test("every code block of the README's quick start is marked for a test")
    func quickStartBlocksAreAllTested() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let counts = DocsSnippet.fencedBlockCount(in: text, section: "## Quick start: an iOS app")
        #expect(counts.all >= 7, "the quick start section was not found or lost its blocks")
        #expect(counts.marked == counts.all, "a quick start block without a <!-- docs-test: … --> marker is tested by nothing")
    }

    @Test("the README's app snippets type-check importing only Vigil (and the UI framework)")
    func readmeSwiftSnippets() throws {
        let snippets = try DocsSnippet.all(in: "README.md", root: Self.root).filter { $0.kind == "swift" }
        #expect(snippets.count >= 3)
        let compiler = try SnippetCompiler()
        let companion = try String(contentsOf: Self.root.appendingPathComponent("Tests/VigilDocsTests/StandIns/AppCompanion.swift"),
                                   encoding: .utf8)
        for snippet in snippets {
            #expect(Set(snippet.importedModules).subtracting(["UIKit", "SwiftUI"]) == ["Vigil"],
                    "\(snippet) imports \(snippet.importedModules); the quick start promises `import Vigil` alone")
            let outcome = try compiler.typecheck([("Snippet.swift", snippet.code), ("AppCompanion.swift", companion)])
            #expect(outcome.succeeded, "\(snippet): \(outcome)")
        }
    }

    @Test("docs/launch.md's examples type-check importing only VigilLaunch")
    func launchExamples() throws {
        let snippets = try DocsSnippet.all(in: "docs/launch.md", root: Self.root).filter { $0.kind == "launch" }
        #expect(snippets.count == 2)
        #expect(Set(snippets.flatMap(\.importedModules)) == ["VigilLaunch"])
        let companion = try String(contentsOf: Self.root.appendingPathComponent("Tests/VigilDocsTests/StandIns/LaunchCompanion.swift"),
                                   encoding: .utf8)
        let outcome = try SnippetCompiler().typecheck([("main.swift", snippets.map(\.code).joined()),
                                                       ("LaunchCompanion.swift", companion)], scriptMode: true)
        #expect(outcome.succeeded, "\(outcome)")
    }

    @Test("`import Vigil` exposes what an app names and not the SDK's internals")
    func vigilExposesOnlyItsSurface() throws {
        let compiler = try SnippetCompiler()
        // What an app may write, beyond the README: every re-exported name in use.
        let surface = """
            import Vigil

            struct PrintingSink: EventSink {
                func emit(_ event: Event) { print(event.type, event.context.page ?? "-") }
            }

            func configure() -> VigilSetup {
                var monitoring = VigilConfiguration()
                monitoring.hang.thresholdMs = 1_000
                monitoring.enabledModules.remove(VigilModule.resource)
                monitoring.network.excludedHosts = ["metrics.example.com"]
                var setup = VigilSetup(app: AppInfo(id: "com.example.shop", version: "1.0", build: "7"),
                                       device: .current, monitoring: monitoring,
                                       serverURL: URL(string: "https://vigil.example.com"), ingestKey: "vk_1",
                                       tags: ["experiment": "b"], clock: SystemClock())
                setup.openTelemetry = OTLPExporterConfiguration(endpoint: URL(string: "http://127.0.0.1:4318")!)
                setup.crash.maxThreads = 32
                return setup
            }

            func use() throws {
                Vigil.start(configure())
                Vigil.setAppState(.foreground)
                Vigil.setPage("Checkout")
                Vigil.markFirstFrame()
                Vigil.markFullyDrawn()
                Vigil.pause(); Vigil.resume()
                let recorder: any SpanRecorder = Vigil.spanRecorder
                recorder.record(SpanPayload(traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331",
                                            name: "checkout.submit", kind: SpanKind.client,
                                            start: .now, end: .now, status: SpanStatus.ok,
                                            attributes: ["items": AttributeValue.int(3)]))
                let parent = try TraceParent.parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                let total = Vigil.measure("cart.total", parent: parent) { 42 }
                _ = total
                _ = Vigil.diagnostics()?.hang
                _ = AppInfo.main.version
                Vigil.stop()
            }
            """
        let outcome = try compiler.typecheck([("Surface.swift", surface)])
        #expect(outcome.succeeded, "\(outcome)")

        for hidden in ["HangDetector", "TestClock", "EventStore", "ThreadSampler", "HangMarker"] {
            let probe = "import Vigil\nfunc probe(_ value: \(hidden)) {}\n"
            let refused = try compiler.typecheck([("Probe.swift", probe)])
            #expect(!refused.succeeded && refused.diagnostics.contains("cannot find type '\(hidden)' in scope"),
                    "\(hidden) should need its own import: \(refused)")
        }
    }
}
