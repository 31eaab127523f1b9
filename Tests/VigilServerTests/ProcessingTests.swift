import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// Processing over real databases: issues, fingerprints, roll-ups, late symbols, claiming.
    @Suite("processing")
    struct ProcessingTests {
        /// A hang whose main image is `image`, from a session among `sessions`.
        static func hang(index: Int, image: ImageInfo = SampleEvents.mainImage, version: String = "3.2.0",
                         session: UUID = UUID()) -> Event {
            var event = SampleEvents.make(.hang, index: index, session: session)
            event.id = UUID()
            event.app.version = version
            let base = image.loadAddress.value
            let stack = [Address(base + 0x1a40 + UInt64(index % 7) * 4), Address(base + 0x0f10), Address(0x1_e000_1234)]
            event.images = [image, SampleEvents.systemImage]
            if case .hang(var hang) = event.payload {
                hang.hotStack = stack
                hang.stacks = [StackCount(frames: stack, count: 40)]
                event.payload = .hang(hang)
            }
            return event
        }

        static func makeProcessor(_ store: ServerStore, engine: (any SymbolicationEngine)? = TableSymbolication()) -> EventProcessor {
            EventProcessor(store: store, symbols: SymbolTableCache(engine: engine))
        }

        static func ingest(_ store: ServerStore, _ project: Project, _ events: [Event]) throws {
            let outcome = try EventIngestor(store: store).ingest(try EventJSON.makeEncoder().encode(events), projectID: project.id)
            #expect(outcome.rejected.isEmpty, "\(outcome.rejected)")
        }

        @Test("hangs and crashes become issues with counts, users, versions and in-app frames", arguments: StoreKind.allCases)
        func issuesFromEvents(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "processing")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "shop")
            try store.storeSymbols(projectID: project.id, try TableSymbolication.slices([TableSymbolication.sampleUpload()]))
            let sessions = [UUID(), UUID(), UUID()]
            let hangs = (0..<9).map { Self.hang(index: $0, session: sessions[$0 % 3]) }
            var crash = SampleEvents.make(.crash, index: 2)
            crash.id = UUID()
            try Self.ingest(store, project, hangs + [crash])
            let processed = try Self.makeProcessor(store).drain()
            #expect(processed == 10)
            let issues = try store.issues(projectID: project.id)
            #expect(issues.count == 2)
            let hangIssue = try #require(issues.first)
            #expect(hangIssue.kind == "hang")
            #expect(hangIssue.events == 9)
            #expect(hangIssue.users == 3)
            #expect(hangIssue.title == "Hang in PriceFormatter.format(_:)")
            #expect(hangIssue.symbolicated)
            let detail = try #require(try store.issue(projectID: project.id, id: hangIssue.id))
            #expect(detail.frames.map(\.function) == ["PriceFormatter.format(_:)", "CheckoutViewController.pay()",
                                                      "AppDelegate.main()", nil])
            #expect(detail.frames.map(\.inApp) == [true, true, true, false])
            #expect(detail.frames.first?.inlined == true)
            #expect(detail.versions.map(\.version) == ["3.2.0"])
            let crashIssue = try #require(issues.last)
            #expect(crashIssue.kind == "crash")
            #expect(crashIssue.title.hasPrefix("SIGSEGV in "))
            #expect(try store.issueEvents(projectID: project.id, issueID: hangIssue.id).count == 9)
            #expect(try store.eventCounts(projectID: project.id).pending == 0)
        }

        @Test("the fingerprint is the same across builds: new UUIDs, moved images, other versions", arguments: StoreKind.allCases)
        func stableAcrossBuilds(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "processing")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "shop")
            var rebuilt = SampleEvents.mainImage
            rebuilt.id = "11111111-2222-3333-4444-555555555555"
            rebuilt.loadAddress = Address(0x1_0450_0000)
            try store.storeSymbols(projectID: project.id, try TableSymbolication.slices([
                TableSymbolication.sampleUpload(), TableSymbolication.sampleUpload(debugID: rebuilt.id)]))
            try Self.ingest(store, project, [Self.hang(index: 1, version: "3.2.0"), Self.hang(index: 5, image: rebuilt, version: "3.3.0")])
            try Self.makeProcessor(store).drain()
            let issues = try store.issues(projectID: project.id)
            #expect(issues.count == 1)
            #expect(issues.first?.events == 2)
            #expect(Set(issues.first?.versions ?? []) == ["3.2.0", "3.3.0"])
        }

        @Test("late symbols re-process events: they leave the provisional issue for the symbolicated one", arguments: StoreKind.allCases)
        func lateSymbols(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "processing")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "shop")
            let events = (0..<4).map { Self.hang(index: $0) }
            try Self.ingest(store, project, events)
            let processor = Self.makeProcessor(store)
            try processor.drain()
            let before = try store.issues(projectID: project.id)
            // Without symbols, frames differ by offset: provisional issues, one per distinct offset.
            #expect(before.count == 4)
            #expect(before.allSatisfy { !$0.symbolicated && $0.title.contains("Shop + 0x") })
            let missing = try store.missingSymbols(projectID: project.id)
            #expect(missing.map(\.debugID) == [SampleEvents.mainImage.id, SampleEvents.systemImage.id].sorted().filter { id in
                missing.contains { $0.debugID == id } })
            #expect(missing.first { $0.debugID == SampleEvents.mainImage.id }?.events == 4)
            let requeued = try store.storeSymbols(projectID: project.id, try TableSymbolication.slices([TableSymbolication.sampleUpload()]))
            #expect(requeued == 4)
            try processor.drain()
            let after = try store.issues(projectID: project.id)
            #expect(after.count == 1)
            #expect(after.first?.events == 4)
            #expect(after.first?.symbolicated == true)
            #expect(try store.missingSymbols(projectID: project.id).allSatisfy { $0.debugID != SampleEvents.mainImage.id })
            // Re-processing added nothing to the roll-ups.
            let hangs = try Insights(store: store).hangs(projectID: project.id)
            #expect(hangs.reduce(0) { $0 + $1.hangs } == 4)
        }

        @Test("roll-ups: hangs per page, frame ratios, network percentiles with phases, launch percentiles", arguments: StoreKind.allCases)
        func rollups(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "processing")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "shop")
            let events = (0..<100).map { SampleEvents.make(.network, index: $0) } + (0..<30).map { SampleEvents.make(.frames, index: $0) }
                + (0..<50).map { SampleEvents.make(.launch, index: $0) } + (0..<6).map { Self.hang(index: $0) }
            try Self.ingest(store, project, events)
            try Self.makeProcessor(store, engine: nil).drain()
            let insights = Insights(store: store)
            let network = try insights.network(projectID: project.id)
            #expect(network.count == 1)
            let template = try #require(network.first)
            #expect(template.template == "GET https://api.example.com/users/:id/orders")
            #expect(template.requests == 100)
            #expect(template.errors == 10)
            // total = 228 + index: exact p50 is 277.5–278, p95 is 322–323; buckets are within 1%.
            #expect(abs((template.p50Ms ?? 0) - 278) / 278 < 0.012)
            #expect(abs((template.p95Ms ?? 0) - 323) / 323 < 0.012)
            #expect(abs((template.p99Ms ?? 0) - 327) / 327 < 0.012)
            #expect(template.phases.dns == 12 && template.phases.tls == 45)
            #expect(abs((template.phases.ttfb ?? 0) - 169.5) < 0.001)
            let frames = try insights.frames(projectID: project.id)
            #expect(frames.count == 3)
            #expect(frames.allSatisfy { $0.windows == 10 && $0.frames == 520 && $0.slow == 10 })
            let launches = try insights.launches(projectID: project.id)
            #expect(launches.count == 1)
            #expect(launches.first?.launches == 50)
            #expect(abs((launches.first?.ttidP50Ms ?? 0) - 1004.5) / 1004.5 < 0.012)
            #expect(abs((launches.first?.ttfdP90Ms ?? 0) - 1450) / 1450 < 0.012)
            #expect(try insights.launchTrend(projectID: project.id).first?.launches == 50)
            let hangs = try insights.hangs(projectID: project.id)
            #expect(hangs.map(\.hangs).reduce(0, +) == 6)
            #expect(hangs.first?.totalMs == 5000)
            let overview = try insights.overview(projectID: project.id)
            #expect(overview.eventsByType["network"] == 100)
        }

        @Test("concurrent workers process every event exactly once", arguments: StoreKind.allCases)
        func concurrentWorkers(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "processing")
            let store = try kind.makeStore(in: directory)
            defer { store.database.close() }
            let (project, _) = try store.createProject(name: "shop")
            let processor = EventProcessor(store: store, symbols: SymbolTableCache(engine: nil), batchSize: 40)
            processor.start(workers: 3, pollSeconds: 0.02)
            let sessions = (0..<5).map { _ in UUID() }
            for round in 0..<6 {
                let events = (0..<50).map { index -> Event in
                    index % 5 == 0 ? Self.hang(index: 1, session: sessions[index % 5])
                                   : { var e = SampleEvents.make(.network, index: index); e.id = UUID(); return e }()
                }
                try Self.ingest(store, project, events)
                _ = round
                processor.wake()
            }
            let deadline = Date().addingTimeInterval(60)
            while try store.eventCounts(projectID: project.id).pending > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            processor.stop()
            #expect(try store.eventCounts(projectID: project.id).processed == 300)
            let counted = try store.rollupSums(projectID: project.id, metrics: ["events"]).reduce(0) { $0 + $1.count }
            #expect(counted == 300)
            let issues = try store.issues(projectID: project.id)
            #expect(issues.count == 1)
            #expect(issues.first?.events == 60)
            #expect(issues.first?.users == 1)
        }
    }
}
