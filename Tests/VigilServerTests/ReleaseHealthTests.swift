import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// Release health from 10,000 seeded sessions over two releases, ingested as the server
    /// ingests them, against a reference computed here from the same sessions.
    @Suite("release health")
    struct ReleaseHealthTests {
        static let releases = [AppInfo(id: "com.example.shop", version: "3.2.0", build: "412"),
                               AppInfo(id: "com.example.shop", version: "3.2.1", build: "413")]
        static let device = DeviceInfo(model: "iPhone14,2", os: "iOS", osVersion: "18.1", arch: "arm64")

        /// The reference figures of one release.
        struct Reference {
            var sessions = 0
            var outcomes: [SessionOutcome: Int] = [:]
            var foregroundMs = 0.0
            var hangMs = 0.0
            var users = Set<UUID>()
            var crashedUsers = Set<UUID>()
            var ttids: [Double] = []
        }

        /// The seeded data set: events (sessions, their hangs and launches) and the reference.
        static func dataSet(seed: UInt64, now: Date) -> (events: [Event], reference: [String: Reference]) {
            var random = HyperLogLogTests.SeededGenerator(state: seed)
            // 6,000 installs; the first release's users are installs 0..<4000, the second's 2000..<6000.
            let installs = (0..<6000).map { index in UUID(uuidString: String(format: "6A1F0C2E-5B7D-4E8A-9C3B-%012X", index))! }
            var reference: [String: Reference] = [:]
            var events: [Event] = []
            events.reserveCapacity(14_000)
            let outcomeWeights: [[(SessionOutcome, Double)]] = [
                [(.exited, 0.80), (.crashed, 0.04), (.fatalHang, 0.01), (.abnormal, 0.03), (.backgroundKilled, 0.12)],
                [(.exited, 0.86), (.crashed, 0.015), (.fatalHang, 0.005), (.abnormal, 0.01), (.backgroundKilled, 0.11)],
            ]
            for index in 0..<10_000 {
                let releaseIndex = index % 5 < 2 ? 0 : 1
                let app = releases[releaseIndex]
                let install = installs[Int.random(in: releaseIndex == 0 ? 0..<4000 : 2000..<6000, using: &random)]
                var pick = Double.random(in: 0..<1, using: &random)
                var outcome = SessionOutcome.exited
                for (candidate, weight) in outcomeWeights[releaseIndex] {
                    if pick < weight { outcome = candidate; break }
                    pick -= weight
                }
                let session = UUID()
                let start = now.addingTimeInterval(-Double.random(in: 600..<(3 * 86_400), using: &random))
                let durationMs = Double(Int.random(in: 5_000...1_800_000, using: &random))
                let foregroundMs = (durationMs * Double.random(in: 0.2...1, using: &random)).rounded()
                var ref = reference[app.build] ?? Reference()
                ref.sessions += 1
                ref.outcomes[outcome, default: 0] += 1
                ref.foregroundMs += foregroundMs
                ref.users.insert(install)
                if outcome.isCrash { ref.crashedUsers.insert(install) }
                let payload = SessionPayload(start: start, end: start.addingTimeInterval(durationMs / 1000), durationMs: durationMs,
                                             foregroundMs: foregroundMs, outcome: outcome, reasons: ["seeded"])
                events.append(Event(id: session, time: start, session: session, app: app, device: device, install: install,
                                    payload: .session(payload)))
                // Hangs: some shorter than 250 ms, which the hang rate leaves out.
                for hang in 0..<Int.random(in: 0...(releaseIndex == 0 ? 3 : 1), using: &random) {
                    let ms = Double(Int.random(in: 100...6_000, using: &random))
                    if ms >= 250 { ref.hangMs += ms }
                    let hangStart = start.addingTimeInterval(Double(hang + 1))
                    events.append(Event(time: hangStart, session: session, app: app, device: device, install: install,
                                        payload: .hang(HangPayload(start: hangStart, end: hangStart.addingTimeInterval(ms / 1000),
                                                                   durationMs: ms, kind: .fullyBlocking, thresholdMs: 100,
                                                                   runLoopActivity: "beforeSources", stacks: []))))
                }
                if index % 4 == 0 {
                    let ttid = Double(Int.random(in: releaseIndex == 0 ? 600...2400 : 400...1600, using: &random))
                    ref.ttids.append(ttid)
                    events.append(Event(time: start, session: session, app: app, device: device, install: install,
                                        payload: .launch(LaunchPayload(kind: .cold, processStart: start, ttidMs: ttid))))
                }
                reference[app.build] = ref
            }
            return (events, reference)
        }

        static func quantile(_ values: [Double], _ q: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))]
        }

        /// Ingests `events` in batches of 500: every other batch processed at ingest, the rest
        /// stored waiting and processed by the pool (the path that reads `user_key` back).
        static func ingest(_ events: [Event], into store: ServerStore, projectID: Int64) throws {
            let processor = IngestProcessingTests.makeProcessor(store)
            var start = 0, batch = 0
            while start < events.count {
                let slice = Array(events[start..<min(start + 500, events.count)])
                let outcome = try EventIngestor(store: store, processor: batch % 2 == 0 ? processor : nil)
                    .ingest(try EventJSON.makeEncoder().encode(slice), projectID: projectID)
                #expect(outcome.rejected.isEmpty, "\(outcome.rejected.prefix(3))")
                start += slice.count
                batch += 1
            }
            _ = try processor.drain()
        }

        static func check(_ store: ServerStore, projectID: Int64, reference: [String: Reference]) throws -> [ReleaseHealth] {
            let releases = try store.releaseHealth(projectID: projectID)
            try #require(releases.count == 2)
            #expect(releases.map(\.total.version) == ["3.2.1", "3.2.0"], "newest first")
            let allSessions = reference.values.map(\.sessions).reduce(0, +)
            for (total, days) in releases {
                let ref = try #require(reference[total.build])
                #expect(total.sessions == Int64(ref.sessions))
                for outcome in SessionOutcome.allCases {
                    #expect(total.outcomes[outcome, default: 0] == Int64(ref.outcomes[outcome, default: 0]), "\(outcome)")
                }
                #expect(days.map(\.sessions).reduce(0, +) == total.sessions, "the days add up to the release")
                // Distinct users from the sketch: within 2 % of the true count.
                let usersError = abs(Double(total.users) - Double(ref.users.count)) / Double(ref.users.count)
                #expect(usersError <= 0.02, "users \(total.users) vs \(ref.users.count)")
                let crashedError = abs(Double(total.crashedUsers) - Double(ref.crashedUsers.count)) / Double(ref.crashedUsers.count)
                #expect(crashedError <= 0.02, "crashed users \(total.crashedUsers) vs \(ref.crashedUsers.count)")
                let crashFreeUsers = 100 * (1 - Double(ref.crashedUsers.count) / Double(ref.users.count))
                #expect(abs((total.crashFreeUsersPercent ?? -1) - crashFreeUsers) <= 0.5,
                        "crash-free users \(total.crashFreeUsersPercent ?? -1) % vs \(crashFreeUsers) %")
                let crashed = ref.outcomes[.crashed, default: 0] + ref.outcomes[.fatalHang, default: 0]
                let crashFreeSessions = 100 * Double(ref.sessions - crashed) / Double(ref.sessions)
                #expect(abs((total.crashFreeSessionsPercent ?? -1) - crashFreeSessions) < 1e-9)
                let hangRate = (ref.hangMs / 1000) / (ref.foregroundMs / 3_600_000)
                #expect(abs((total.hangRateSecondsPerHour ?? -1) - hangRate) <= 1e-9 * hangRate, "hang rate \(hangRate) s/h")
                let abnormal = 100 * Double(ref.outcomes[.abnormal, default: 0]) / Double(ref.sessions)
                #expect(abs((total.abnormalExitPercent ?? -1) - abnormal) < 1e-9)
                let fatal = 100 * Double(ref.outcomes[.fatalHang, default: 0]) / Double(ref.sessions)
                #expect(abs((total.fatalHangPercent ?? -1) - fatal) < 1e-9)
                #expect(abs(total.adoption - Double(ref.sessions) / Double(allSessions)) < 1e-12)
                // TTID from the log-bucketed histogram (2 % buckets).
                let p50 = quantile(ref.ttids, 0.5), p90 = quantile(ref.ttids, 0.9)
                #expect(abs((total.ttidP50 ?? -1) - p50) / p50 <= 0.03, "p50 \(total.ttidP50 ?? -1) vs \(p50)")
                #expect(abs((total.ttidP90 ?? -1) - p90) / p90 <= 0.03, "p90 \(total.ttidP90 ?? -1) vs \(p90)")
            }
            let better = releases[0].total, older = releases[1].total
            #expect((better.crashFreeUsersPercent ?? 0) > (older.crashFreeUsersPercent ?? 100), "the seeded 3.2.1 is healthier")
            return releases.map(\.total)
        }

        @Test("10,000 seeded sessions over two releases: counts and rates exact, distinct users within 2 %, and the same after a restart",
              arguments: StoreKind.allCases)
        func seededSessions(kind: StoreKind) throws {
            let directory = try TemporaryDirectory(prefix: "releases")
            let location = try kind.freshLocation(in: directory)
            let (events, reference) = Self.dataSet(seed: 19, now: Date())
            var first: [ReleaseHealth] = []
            do {
                let store = try ServerStore.open(location)
                defer { store.database.close() }
                let (project, _) = try store.createProject(name: "health")
                try Self.ingest(events, into: store, projectID: project.id)
                first = try Self.check(store, projectID: project.id, reference: reference)
            }
            let reopened = try ServerStore.open(location)
            defer { reopened.database.close() }
            let project = try #require(try reopened.projects().first { $0.name == "health" })
            let again = try reopened.releaseHealth(projectID: project.id).map(\.total)
            #expect(again == first, "a restart reads the same figures")
        }

        @Test("two stores ingesting halves at once agree with one sketch of every key (registers merge with max)")
        func twoWritersOnePostgres() throws {
            let directory = try TemporaryDirectory(prefix: "releases-two")
            let location = try StoreKind.postgres.freshLocation(in: directory)
            let (events, _) = Self.dataSet(seed: 23, now: Date())
            let stores = [try ServerStore.open(location), try ServerStore.open(location)]
            defer { for store in stores { store.database.close() } }
            let (project, _) = try stores[0].createProject(name: "health")
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                do {
                    try Self.ingest(events.enumerated().filter { $0.offset % 2 == part }.map(\.element), into: stores[part],
                                    projectID: project.id)
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.items.isEmpty, "\(failures.items)")
            var expected: [String: HyperLogLog] = [:]
            for event in events {
                guard case .session = event.payload, let install = event.install else { continue }
                expected[event.app.build, default: HyperLogLog()].insert("i:" + install.canonicalString)
            }
            for (total, _) in try stores[1].releaseHealth(projectID: project.id) {
                #expect(total.users == expected[total.build]?.count, "\(total.build)")
            }
        }
    }
}
