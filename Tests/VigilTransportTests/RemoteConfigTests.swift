import Foundation
import Testing
import VigilCore
import VigilTestSupport
import VigilTransport

@Suite("Remote config: the document, its validation and its fallbacks")
struct RemoteConfigTests {
    @Test("an empty object is the compiled defaults, and a full document round-trips")
    func defaultsAndRoundTrip() throws {
        #expect(try RemoteConfig.parse(Data("{}".utf8)) == RemoteConfig())
        var config = RemoteConfig(enabled: false, modules: [.frames: false, .ble: true],
                                  sampling: [.network: 0.25, .log: 0], hangThresholdMs: 400, refreshSeconds: 600)
        config.upload.maxTries = 3
        config.upload.backoffBaseSeconds = 10
        let decoded = try RemoteConfig.parse(config.encoded())
        #expect(decoded == config)
        #expect(decoded.validationIssues().isEmpty)
        #expect(!decoded.isEnabled(.hangs))
        #expect(decoded.samplingRate(for: .network) == 0.25)
        #expect(decoded.samplingRate(for: .crash) == 1)
    }

    @Test("wrong types are refused with the field named, and the SDK falls back to the defaults",
          arguments: [
            ("{\"enabled\": \"yes\"}", "enabled"),
            ("{\"modules\": {\"hangs\": 1}}", "modules.hangs"),
            ("{\"sampling\": {\"network\": \"half\"}}", "sampling.network"),
            ("{\"hangThresholdMs\": \"250\"}", "hangThresholdMs"),
            ("{\"upload\": {\"maxTries\": 2.5}}", "upload.maxTries"),
            ("{\"upload\": []}", "upload"),
            ("{\"modules\": [\"hangs\"]}", "modules"),
            ("{\"schema\": 0}", "schema"),
          ])
    func wrongTypes(document: String, field: String) throws {
        #expect(throws: RemoteConfigError.self) { try RemoteConfig.parse(Data(document.utf8)) }
        do {
            _ = try RemoteConfig.parse(Data(document.utf8))
        } catch {
            #expect(error.field == field)
            #expect(error.kind == .wrongType)
        }
        let (config, issues) = RemoteConfig.decodeForSDK(Data(document.utf8))
        #expect(config == RemoteConfig())
        #expect(issues.count == 1)
    }

    @Test("bodies that are not a JSON object, or too large, are refused as malformed",
          arguments: ["", "<html>oops</html>", "[]", "null", "42", "{\"enabled\": tru"])
    func malformed(document: String) {
        let (config, issues) = RemoteConfig.decodeForSDK(Data(document.utf8))
        #expect(config == RemoteConfig())
        #expect(issues.first?.kind == .malformed)
        let huge = Data(("{\"x\": \"" + String(repeating: "a", count: 70_000) + "\"}").utf8)
        #expect(RemoteConfig.decodeForSDK(huge).issues.first?.kind == .tooLarge)
    }

    @Test("huge and out-of-range values are reported for the server and clamped for the SDK")
    func hugeValues() throws {
        let document = """
            {"hangThresholdMs": 1e300, "refreshSeconds": -5, "sampling": {"network": 7, "frames": -1},
             "upload": {"maxBatchEvents": 1e30, "maxBatchBytes": 0, "maxTries": 99999999999999999999,
                        "backoffBaseSeconds": 600, "backoffCapSeconds": 60, "jitterFraction": 3,
                        "parkSeconds": 1e18, "initialDelaySeconds": -1}}
            """
        let parsed = try RemoteConfig.parse(Data(document.utf8))
        let fields = Set(parsed.validationIssues().map(\.field))
        #expect(fields == ["hangThresholdMs", "refreshSeconds", "sampling.network", "sampling.frames",
                           "upload.maxBatchEvents", "upload.maxBatchBytes", "upload.maxTries",
                           "upload.backoffCapSeconds", "upload.jitterFraction", "upload.parkSeconds",
                           "upload.initialDelaySeconds"])
        #expect(parsed.validationIssues().allSatisfy { $0.kind == .outOfRange && $0.reason.contains("...") || $0.reason.contains("below") })
        let (config, issues) = RemoteConfig.decodeForSDK(Data(document.utf8))
        #expect(issues.count == 11)
        #expect(config.validationIssues().isEmpty)
        #expect(config.hangThresholdMs == 60_000)
        #expect(config.refreshSeconds == 60)
        #expect(config.samplingRate(for: .network) == 1 && config.samplingRate(for: .frames) == 0)
        #expect(config.upload.maxBatchEvents == 500)
        #expect(config.upload.maxBatchBytes == 16_384)
        #expect(config.upload.maxTries == 20)
        #expect(config.upload.backoffCapSeconds == 600)
        #expect(config.upload.jitterFraction == 0.5)
        #expect(config.upload.initialDelaySeconds == 0)
    }

    @Test("unknown fields, modules and event types are ignored")
    func forwardCompatible() throws {
        let document = """
            {"schema": 2, "futureField": {"a": [1, 2]}, "modules": {"hangs": false, "teleport": true},
             "sampling": {"hologram": 0.5, "span": 0.1}}
            """
        let config = try RemoteConfig.parse(Data(document.utf8))
        #expect(config.schema == 2)
        #expect(config.modules == [.hangs: false])
        #expect(config.sampling == [.span: 0.1])
    }

    @Test("live application: kill switch, sampling and policy change now; modules only off; threshold at next start")
    func liveApplication() {
        let start = RemoteConfig(modules: [.frames: false], hangThresholdMs: 250)
        var fetched = RemoteConfig(enabled: false, modules: [.frames: true, .network: false],
                                   sampling: [.log: 0.5], hangThresholdMs: 900)
        fetched.upload.maxTries = 2
        let live = start.applyingLive(fetched)
        #expect(!live.enabled)
        #expect(live.sampling == [.log: 0.5])
        #expect(live.upload.maxTries == 2)
        #expect(live.hangThresholdMs == 250)
        #expect(live.modules[.frames] == false)
        #expect(live.modules[.network] == false)
        #expect(live.modules[.hangs] == true)
        // Switched on again live: only modules that were on at start.
        #expect(live.applyingLive(RemoteConfig()).modules[.network] == false)
        #expect(start.applyingLive(RemoteConfig()).modules[.network] == true)
    }
}

@Suite("Remote config: fetching with ETag and caching")
struct RemoteConfigClientTests {
    private func refresh(_ client: RemoteConfigClient) -> RemoteConfigClient.Refresh {
        let box = ResultBox()
        client.refresh { box.value = $0 }
        return box.value!
    }

    private final class ResultBox: @unchecked Sendable { var value: RemoteConfigClient.Refresh? }

    @Test("no cache and no server: the compiled defaults")
    func unreachable() throws {
        let directory = try TemporaryDirectory(prefix: "config")
        let http = ScriptedHTTPClient { _ in .failure(.transport("connection refused")) }
        let client = RemoteConfigClient(baseURL: URL(string: "http://vigil.test")!, ingestKey: "k", http: http,
                                        cacheDirectory: directory.url)
        let loaded = client.loadAtStart()
        #expect(loaded.source == .defaults)
        #expect(loaded.configuration == RemoteConfig())
        guard case .failed = refresh(client) else { Issue.record("expected failed"); return }
        #expect(client.statistics().failed == 1)
    }

    @Test("a fetched document is cached for the next start and its ETag sent; 304 keeps it")
    func cacheAndETag() throws {
        let directory = try TemporaryDirectory(prefix: "config")
        let document = RemoteConfig(sampling: [.network: 0.5], hangThresholdMs: 500).encoded()
        let http = ScriptedHTTPClient { request in
            if request.headers["If-None-Match"] == "\"v7\"" { return .success(HTTPResponse(status: 304)) }
            return .success(HTTPResponse(status: 200, headers: ["ETag": "\"v7\""], body: document))
        }
        let base = URL(string: "http://vigil.test")!
        let client = RemoteConfigClient(baseURL: base, ingestKey: "k", http: http, cacheDirectory: directory.url)
        _ = client.loadAtStart()
        guard case .updated(let config, let issues) = refresh(client) else { Issue.record("expected updated"); return }
        #expect(config.samplingRate(for: .network) == 0.5)
        #expect(issues.isEmpty)
        #expect(http.requests[0].url.absoluteString == "http://vigil.test/api/v1/config")
        #expect(http.requests[0].headers["Authorization"] == "Bearer k")
        #expect(http.requests[0].headers["If-None-Match"] == nil)

        let nextStart = RemoteConfigClient(baseURL: base, ingestKey: "k", http: http, cacheDirectory: directory.url)
        let loaded = nextStart.loadAtStart()
        #expect(loaded.source == .cache)
        #expect(loaded.configuration.hangThresholdMs == 500)
        guard case .notModified = refresh(nextStart) else { Issue.record("expected 304"); return }
        #expect(http.requests[1].headers["If-None-Match"] == "\"v7\"")
    }

    @Test("an invalid answer changes nothing, and a damaged cache falls back to the defaults",
          arguments: ["<html>maintenance</html>", "", "{\"enabled\": 0}"])
    func invalidAnswers(body: String) throws {
        let directory = try TemporaryDirectory(prefix: "config")
        let good = RemoteConfig(hangThresholdMs: 700).encoded()
        let http = ScriptedHTTPClient { _ in .success(HTTPResponse(status: 200, headers: ["ETag": "\"a\""], body: good)) }
        let base = URL(string: "http://vigil.test")!
        let client = RemoteConfigClient(baseURL: base, ingestKey: "k", http: http, cacheDirectory: directory.url)
        _ = refresh(client)
        http.setAnswer { _ in .success(HTTPResponse(status: 200, headers: ["ETag": "\"b\""], body: Data(body.utf8))) }
        guard case .invalid = refresh(client) else { Issue.record("expected invalid"); return }
        #expect(client.statistics().invalid == 1)
        let loaded = RemoteConfigClient(baseURL: base, ingestKey: "k", http: http, cacheDirectory: directory.url).loadAtStart()
        #expect(loaded.configuration.hangThresholdMs == 700)

        try Data("\"a\"\n{\"hangThresholdMs\": [1]}".utf8).write(to: directory.file("remote-config.cache"))
        let damaged = RemoteConfigClient(baseURL: base, ingestKey: "k", http: http, cacheDirectory: directory.url)
        let fallback = damaged.loadAtStart()
        #expect(fallback.source == .defaults)
        #expect(fallback.configuration == RemoteConfig())
        #expect(damaged.statistics().unreadableCache == 1)
    }

    @Test("a server error status leaves the configuration alone")
    func serverError() throws {
        let directory = try TemporaryDirectory(prefix: "config")
        let http = ScriptedHTTPClient { _ in .success(HTTPResponse(status: 503, body: Data("<html/>".utf8))) }
        let client = RemoteConfigClient(baseURL: URL(string: "http://vigil.test")!, ingestKey: "k", http: http,
                                        cacheDirectory: directory.url)
        guard case .failed(let reason) = refresh(client) else { Issue.record("expected failed"); return }
        #expect(reason == "HTTP 503")
        #expect(client.loadAtStart().source == .defaults)
    }
}

@Suite("Event gate: kill switch, module switches and sampling")
struct EventGateTests {
    private final class Collector: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private(set) var events: [Event] = []
        func emit(_ event: Event) {
            lock.lock()
            events.append(event)
            lock.unlock()
        }
    }

    @Test("the kill switch and a module switch stop events; sampling keeps about its rate, reproducibly")
    func gate() {
        let collector = Collector()
        let gate = EventGate(downstream: collector, configuration: RemoteConfig(modules: [.frames: false],
                                                                                sampling: [.network: 0.25, .log: 0]), seed: 11)
        for index in 0..<4000 { gate.emit(SampleEvents.make(.network, index: index)) }
        gate.emit(SampleEvents.make(.frames, index: 1))
        gate.emit(SampleEvents.make(.log, index: 1))
        gate.emit(SampleEvents.make(.crash, index: 1))
        let kept = collector.events.filter { $0.type == .network }.count
        #expect(kept > 850 && kept < 1150)
        #expect(collector.events.contains { $0.type == .crash })
        #expect(!collector.events.contains { $0.type == .frames || $0.type == .log })
        var statistics = gate.statistics()
        #expect(statistics.droppedModuleOff == 1)
        #expect(statistics.droppedSampled == 4000 - kept + 1)
        gate.update(RemoteConfig(enabled: false))
        gate.emit(SampleEvents.make(.crash, index: 2))
        statistics = gate.statistics()
        #expect(statistics.droppedDisabled == 1)

        let again = Collector()
        let twin = EventGate(downstream: again, configuration: RemoteConfig(sampling: [.network: 0.25]), seed: 11)
        for index in 0..<4000 { twin.emit(SampleEvents.make(.network, index: index)) }
        #expect(again.events.count == kept)
    }
}
