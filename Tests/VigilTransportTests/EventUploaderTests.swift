import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport
import VigilTransport

@Suite("Uploader: batching, acknowledgement and policy")
struct EventUploaderTests {
    private func makeUploader(_ fixture: StoreFixture, _ http: ScriptedHTTPClient, _ scheduler: ManualScheduler,
                              policy: UploadPolicy = UploadPolicy(), network: any NetworkPathProvider = UnmeteredNetworkProvider(),
                              activity: any AppActivityProvider = ForegroundActivityProvider(), seed: UInt64 = 42) -> EventUploader {
        EventUploader(store: fixture.store, endpoint: testEndpoint, http: http, policy: policy, scheduler: scheduler,
                      clock: scheduler.clock, network: network, activity: activity, seed: seed)
    }

    @Test("waits 5 s after start, then posts gzip JSON lines with the ingest key and deletes what was accepted")
    func firstUpload() throws {
        let fixture = try StoreFixture(count: 40)
        let http = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 4.999)
        #expect(http.requestCount == 0)
        scheduler.advance(by: 0.001)
        #expect(http.requestCount == 1)
        let request = try #require(http.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "http://vigil.test/api/v1/events")
        #expect(request.headers["Authorization"] == "Bearer ingest-key-1")
        #expect(request.headers["Content-Type"] == "application/x-ndjson")
        #expect(request.headers["Content-Encoding"] == "gzip")
        #expect(try ScriptedHTTPClient.events(in: request) == fixture.events)
        #expect(fixture.stored == 0)
        let statistics = uploader.statistics()
        #expect(statistics.eventsAccepted == 40)
        #expect(statistics.compressedBytes < statistics.bodyBytes)
    }

    @Test("batches hold at most 500 events and 1 MiB, and follow each other without delay")
    func batching() throws {
        let fixture = try StoreFixture(count: 1200)
        let http = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 5)
        #expect(try http.requests.map { try ScriptedHTTPClient.events(in: $0).count } == [500, 500, 200])
        #expect(fixture.stored == 0)

        let small = try StoreFixture(count: 300)
        let http2 = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler2 = ManualScheduler()
        var policy = UploadPolicy()
        policy.maxBatchBytes = 20_000
        makeUploader(small, http2, scheduler2, policy: policy).start()
        scheduler2.advance(by: 5)
        #expect(http2.requestCount > 5)
        for request in http2.requests {
            let body = try Gzip.decompress(request.body ?? Data(), limit: 1 << 20)
            #expect(body.count <= 20_000)
        }
        #expect(small.stored == 0)
    }

    @Test("deletes exactly the accepted and rejected events, counts reasons, and retries the rest")
    func partialAcknowledgement() throws {
        let fixture = try StoreFixture(count: 10)
        let ids = fixture.events.map(\.id.uuidString)
        let http = ScriptedHTTPClient { _ in
            .success(ScriptedHTTPClient.json([
                "accepted": Array(ids[0..<5]) + ["00000000-0000-0000-0000-0000000000FF"],
                "rejected": [["index": 5, "id": NSNull(), "reason": "payload.durationMs: expected Double"],
                             ["index": 99, "id": ids[6], "reason": "bad"]],
            ]))
        }
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 5)
        // After the first answer, 3 events are left; the next request carries exactly them.
        #expect(http.requestCount >= 2)
        #expect(try ScriptedHTTPClient.events(in: http.requests[1]).map(\.id.uuidString) == Array(ids[7...]))
        let statistics = uploader.statistics()
        #expect(statistics.eventsAccepted == 5)
        #expect(statistics.eventsRejected == 2)
        #expect(statistics.rejectionReasons == ["payload.durationMs: expected Double": 1, "bad": 1])
        #expect(statistics.unknownAcknowledgements == 1)
        #expect(statistics.eventsNotMentioned >= 3)
    }

    @Test("failures back off 30 s, 60 s, 120 s … with seeded jitter, and a batch is parked after 5 tries")
    func backoffAndPark() throws {
        let fixture = try StoreFixture(count: 3)
        let http = ScriptedHTTPClient { _ in .success(HTTPResponse(status: 500)) }
        let scheduler = ManualScheduler()
        let policy = UploadPolicy()
        let uploader = makeUploader(fixture, http, scheduler, policy: policy, seed: 7)
        uploader.start()
        scheduler.advance(by: 5)
        #expect(http.requestCount == 1)
        var expected = SeededGenerator(seed: 7)
        let schedule = BackoffSchedule(policy)
        var delays: [Double] = []
        for failures in 1...4 {
            let delay = schedule.seconds(afterFailures: failures, using: &expected)
            delays.append(delay)
            let wait = try #require(scheduler.nextDelay)
            #expect(abs(wait - delay) < 1e-6, "the armed delay is the seeded schedule's")
            scheduler.advance(by: wait * 0.999)
            #expect(http.requestCount == failures, "no retry before the delay")
            scheduler.advance(by: try #require(scheduler.nextDelay))
            #expect(http.requestCount == failures + 1, "retry at the delay")
        }
        #expect(zip(delays, [30.0, 60, 120, 240]).allSatisfy { abs($0 - $1) <= $1 * 0.2 })
        #expect(Set(delays.map { $0.rounded() }).count == 4)
        // The fifth failure parks the batch: nothing is sent until the park time is over.
        let statistics = uploader.statistics()
        #expect(statistics.parkedBatches == 1)
        #expect(statistics.retries[.serverError] == 5)
        #expect(uploader.statistics().recentDelays.prefix(4).elementsEqual(delays))
        scheduler.advance(by: policy.parkSeconds - 1)
        let beforeRelease = http.requestCount
        #expect(beforeRelease == 5)
        http.setAnswer(ScriptedHTTPClient.acceptAll)
        scheduler.advance(by: policy.idleIntervalSeconds + 2)
        #expect(http.requestCount == 6)
        #expect(fixture.stored == 0)
    }

    @Test("the backoff schedule doubles up to its cap and its jitter stays within bounds")
    func backoffSchedule() {
        let schedule = BackoffSchedule(baseSeconds: 30, capSeconds: 1800, jitterFraction: 0.2)
        #expect((1...9).map { schedule.nominalSeconds(afterFailures: $0) } == [30, 60, 120, 240, 480, 960, 1800, 1800, 1800])
        #expect(schedule.nominalSeconds(afterFailures: 10_000) == 1800)
        var generator = SeededGenerator(seed: 1)
        for failures in 1...20 {
            let delay = schedule.seconds(afterFailures: failures, using: &generator)
            let nominal = schedule.nominalSeconds(afterFailures: failures)
            #expect(delay >= nominal * 0.8 && delay <= nominal * 1.2)
        }
        var a = SeededGenerator(seed: 99)
        var b = SeededGenerator(seed: 99)
        #expect((1...5).map { schedule.seconds(afterFailures: $0, using: &a) } == (1...5).map { schedule.seconds(afterFailures: $0, using: &b) })
        var c = SeededGenerator(seed: 3)
        #expect(BackoffSchedule(baseSeconds: 30, capSeconds: 100, jitterFraction: 0).seconds(afterFailures: 3, using: &c) == 100)
    }

    @Test("429 waits exactly the Retry-After and does not use up the batch's tries")
    func rateLimited() throws {
        let fixture = try StoreFixture(count: 2)
        let http = ScriptedHTTPClient { _ in .success(HTTPResponse(status: 429, headers: ["Retry-After": "120"])) }
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 5)
        for round in 1...8 {
            scheduler.advance(by: 119.9)
            #expect(http.requestCount == round)
            scheduler.advance(by: 0.1)
            #expect(http.requestCount == round + 1)
        }
        let statistics = uploader.statistics()
        #expect(statistics.parkedBatches == 0)
        #expect(statistics.retries[.rateLimited] == 9)
        http.setAnswer(ScriptedHTTPClient.acceptAll)
        scheduler.advance(by: 120)
        #expect(fixture.stored == 0)
    }

    @Test("503 honours an HTTP-date Retry-After, capped by the policy, and never less than a second")
    func unavailableWithDate() throws {
        let fixture = try StoreFixture(count: 2)
        let scheduler = ManualScheduler()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let clock = scheduler.clock
        let http = ScriptedHTTPClient { _ in
            .success(HTTPResponse(status: 503, headers: ["Retry-After": formatter.string(from: clock.wallNow().addingTimeInterval(300))]))
        }
        var policy = UploadPolicy()
        policy.retryAfterCapSeconds = 200
        let uploader = makeUploader(fixture, http, scheduler, policy: policy)
        uploader.start()
        scheduler.advance(by: 5)
        scheduler.advance(by: 199.9)
        #expect(http.requestCount == 1)
        scheduler.advance(by: 0.1)
        #expect(http.requestCount == 2)
        #expect(uploader.statistics().retries[.unavailable] == 2)
        // Retry-After: 0 must not cause a tight loop.
        http.setAnswer { _ in .success(HTTPResponse(status: 429, headers: ["Retry-After": "0"])) }
        scheduler.advance(by: 200)
        let before = http.requestCount
        scheduler.advance(by: 0.999)
        #expect(http.requestCount == before)
        #expect(RetryAfter.seconds("  17 ", now: Date()) == 17)
        #expect(RetryAfter.seconds("-3", now: Date()) == nil)
        #expect(RetryAfter.seconds("soon", now: Date()) == nil)
        #expect(RetryAfter.seconds(nil, now: Date()) == nil)
    }

    @Test("on a metered network, bodies over 1 MiB wait for an unmetered one while small events flow")
    func meteredHold() throws {
        let fixture = try StoreFixture(count: 5, configuration: StoreConfiguration(maximumRecordBytes: 4 << 20))
        var big = SampleEvents.make(.log, index: 900)
        big.payload = .log(LogPayload(level: .info, message: String(repeating: "m", count: 1_500_000)))
        fixture.store.enqueue(big)
        fixture.store.flush()
        let http = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler = ManualScheduler()
        let network = ScriptedNetwork(NetworkPath(isAvailable: true, isMetered: true))
        var policy = UploadPolicy()
        policy.maxBatchBytes = 4 << 20
        let uploader = makeUploader(fixture, http, scheduler, policy: policy, network: network)
        uploader.start()
        scheduler.advance(by: 5)
        #expect(try http.requests.flatMap { try ScriptedHTTPClient.events(in: $0) }.map(\.id) == fixture.events.map(\.id))
        #expect(fixture.stored == 1)
        scheduler.advance(by: 600)
        #expect(http.requestCount == 1)
        #expect(uploader.statistics().heldForMeteredNetwork >= 1)
        network.set(.unmetered)
        scheduler.runDue()
        #expect(http.requestCount == 2)
        #expect(try ScriptedHTTPClient.events(in: http.requests[1]).map(\.id) == [big.id])
        #expect(fixture.stored == 0)
    }

    @Test("uploads stop in the background and resume in the foreground, unless a background session exists",
          arguments: [false, true])
    func background(sessionAvailable: Bool) throws {
        let fixture = try StoreFixture(count: 3)
        let http = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler = ManualScheduler()
        let activity = ScriptedActivity(backgroundUploadsAvailable: sessionAvailable)
        let uploader = makeUploader(fixture, http, scheduler, activity: activity)
        activity.set(inBackground: true)
        uploader.start()
        scheduler.advance(by: 60)
        #expect(http.requestCount == (sessionAvailable ? 1 : 0))
        #expect(uploader.statistics().pausedInBackground == (sessionAvailable ? 0 : 1))
        activity.set(inBackground: false)
        scheduler.runDue()
        #expect(http.requestCount == 1)
        #expect(fixture.stored == 0)
    }

    @Test("the kill switch stops uploads live and lifting it resumes them")
    func killSwitch() throws {
        let fixture = try StoreFixture(count: 3)
        let http = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.apply(RemoteConfig(enabled: false))
        uploader.start()
        scheduler.advance(by: 3600)
        #expect(http.requestCount == 0)
        uploader.apply(RemoteConfig(enabled: true))
        scheduler.runDue()
        #expect(http.requestCount == 1)
        #expect(fixture.stored == 0)
    }

    @Test("400 and 415 drop the batch, 413 halves it, a lone 413 event is dropped — all counted")
    func clientErrors() throws {
        let fixture = try StoreFixture(count: 8)
        let http = ScriptedHTTPClient { _ in .success(HTTPResponse(status: 413)) }
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 5)
        // 8 → 4 → 2 → 1 → the single event is dropped, then each remaining one alone.
        let sizes = try http.requests.map { try ScriptedHTTPClient.events(in: $0).count }
        #expect(Array(sizes.prefix(4)) == [8, 4, 2, 1])
        #expect(fixture.stored == 0)
        let statistics = uploader.statistics()
        #expect(statistics.splits == 3)
        #expect(statistics.droppedTooLarge == 8)

        for status in [400, 415] {
            let more = try StoreFixture(count: 4)
            let http2 = ScriptedHTTPClient { _ in .success(HTTPResponse(status: status)) }
            let scheduler2 = ManualScheduler()
            let uploader2 = makeUploader(more, http2, scheduler2)
            uploader2.start()
            scheduler2.advance(by: 5)
            #expect(http2.requestCount == 1)
            #expect(more.stored == 0)
            #expect(uploader2.statistics().droppedBatches == 1)
            #expect(uploader2.statistics().droppedEvents == 4)
        }
    }

    @Test("HTML, empty, wrong-shape and odd answers are counted as failed tries and never get the uploader stuck",
          arguments: [
            (200, "<html><body>502 Bad Gateway</body></html>"), (200, ""), (200, "   \n"), (200, "{\"accepted\": 5}"),
            (200, "[1,2,3]"), (200, "{\"accepted\": [], \"rejected\": []}"), (502, "<html>bad gateway</html>"),
            (302, ""), (404, "not found"), (401, "{\"error\":\"unauthorized\"}"), (200, "{\"accepted\": [\"x\"]"),
          ])
    func badAnswers(status: Int, body: String) throws {
        let fixture = try StoreFixture(count: 5)
        let http = ScriptedHTTPClient { _ in .success(HTTPResponse(status: status, body: Data(body.utf8))) }
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 5)
        #expect(http.requestCount == 1)
        #expect(fixture.stored == 5)
        let retries = uploader.statistics().retries.values.reduce(0, +)
        #expect(retries == 1)
        // Then the server recovers: everything arrives after the backoff.
        http.setAnswer(ScriptedHTTPClient.acceptAll)
        scheduler.advance(by: 40)
        #expect(fixture.stored == 0)
    }

    @Test("a transport error or a timeout is retried with backoff")
    func transportFailures() throws {
        let fixture = try StoreFixture(count: 2)
        let http = ScriptedHTTPClient { request in
            request.body == nil ? .failure(.timedOut) : .failure(.transport("connection refused"))
        }
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 5)
        http.setAnswer { _ in .failure(.timedOut) }
        scheduler.advance(by: 37)
        let statistics = uploader.statistics()
        #expect(statistics.retries[.transport] == 1)
        #expect(statistics.retries[.timeout] == 1)
        #expect(fixture.stored == 2)
    }

    @Test("records that are not JSON objects with an id are dropped and counted, never sent")
    func unreadableRecords() throws {
        let fixture = try StoreFixture(count: 2)
        fixture.store.enqueue(encoded: Data("not json".utf8), priority: .normal)
        fixture.store.enqueue(encoded: Data("{\"id\": \"no-uuid\"}".utf8), priority: .normal)
        fixture.store.flush()
        let http = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 5)
        #expect(try ScriptedHTTPClient.events(in: http.requests[0]).count == 2)
        #expect(uploader.statistics().droppedUnreadable == 2)
        #expect(fixture.stored == 0)
    }
}
