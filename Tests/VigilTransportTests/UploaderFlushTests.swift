import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport
import VigilTransport

@Suite("Uploader: flush before exit")
struct UploaderFlushTests {
    private func makeUploader(_ fixture: StoreFixture, _ http: ScriptedHTTPClient, _ scheduler: ManualScheduler) -> EventUploader {
        EventUploader(store: fixture.store, endpoint: testEndpoint, http: http, scheduler: scheduler, clock: scheduler.clock,
                      seed: 1)
    }

    @Test("flush cuts the 5 s launch delay short and sends everything stored at once")
    func flushSkipsLaunchDelay() throws {
        let fixture = try StoreFixture(count: 12)
        let http = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 1)
        #expect(http.requestCount == 0, "still inside the launch delay")
        uploader.flush()
        scheduler.runDue()
        #expect(http.requestCount == 1)
        #expect(fixture.stored == 0)
        #expect(uploader.statistics().eventsAccepted == 12)
    }

    @Test("flush does not cut short a backoff: the server said it cannot take more yet")
    func flushKeepsBackoff() throws {
        let fixture = try StoreFixture(count: 3)
        let http = ScriptedHTTPClient { _ in .success(HTTPResponse(status: 503)) }
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 1)
        uploader.flush()
        scheduler.runDue()
        #expect(http.requestCount == 1, "the flush cut the launch delay short")
        let backoff = try #require(uploader.statistics().recentDelays.last)
        #expect(backoff >= 24, "the first backoff is 30 s ± 20%")
        http.setAnswer(ScriptedHTTPClient.acceptAll)
        uploader.flush()
        scheduler.advance(by: backoff * 0.99)
        #expect(http.requestCount == 1, "no retry before the backoff ends")
        #expect(fixture.stored == 3)
        scheduler.advance(by: backoff * 0.02)
        #expect(http.requestCount == 2)
        #expect(fixture.stored == 0)
    }

    @Test("flush wakes an idle uploader for events stored after it found none")
    func flushWakesIdle() throws {
        let fixture = try StoreFixture(count: 0)
        let http = ScriptedHTTPClient(ScriptedHTTPClient.acceptAll)
        let scheduler = ManualScheduler()
        let uploader = makeUploader(fixture, http, scheduler)
        uploader.start()
        scheduler.advance(by: 5)
        #expect(http.requestCount == 0, "nothing to send: idle")
        for index in 0..<4 { fixture.store.enqueue(SampleEvents.make(.log, index: 100 + index)) }
        fixture.store.flush()
        uploader.flush()
        scheduler.runDue()
        #expect(http.requestCount == 1, "sent without waiting for the 15 s idle interval")
        #expect(fixture.stored == 0)
    }
}
