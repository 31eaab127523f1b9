import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// Slow requests by template with phases and error rate, by app version and network type.
    @Suite("network breakdown view")
    struct NetworkBreakdownTests {
        /// A request event of app `version` on `network`.
        static func request(_ index: Int, template: String = "https://api.example.com/users/:id", version: String,
                            network: String, status: Int?, error: String? = nil, totalMs: Double, dnsMs: Double? = nil,
                            ttfbMs: Double) -> Event {
            Event(id: UUID(), time: SampleEvents.time(plusMilliseconds: Int64(index)), session: UUID(),
                  app: AppInfo(id: "com.example.shop", version: version, build: "1"), device: SampleEvents.device,
                  context: EventContext(page: "Home", appState: "foreground", network: network),
                  payload: .network(NetworkPayload(method: "GET", urlTemplate: template, host: "api.example.com", status: status,
                                                   error: error, bytesSent: 0, bytesReceived: 100,
                                                   timings: NetworkTimings(dns: dnsMs, ttfb: ttfbMs, total: totalMs))))
        }

        /// 3.2.0 on wifi: 8 fast requests; 3.3.0 on cellular: 4 slow ones, one 503, one timeout,
        /// one 404; and 5 requests to another template.
        static func traffic() -> [Event] {
            var events: [Event] = []
            for index in 0..<8 {
                events.append(request(index, version: "3.2.0", network: "wifi", status: 200, totalMs: 100, dnsMs: 10, ttfbMs: 60))
            }
            events.append(request(10, version: "3.3.0", network: "cellular", status: 200, totalMs: 900, dnsMs: 100, ttfbMs: 700))
            events.append(request(11, version: "3.3.0", network: "cellular", status: 503, totalMs: 900, ttfbMs: 800))
            events.append(request(12, version: "3.3.0", network: "cellular", status: nil, error: "NSURLErrorDomain -1001 timedOut",
                                  totalMs: 900, ttfbMs: 850))
            events.append(request(13, version: "3.3.0", network: "cellular", status: 404, totalMs: 900, ttfbMs: 650))
            for index in 20..<25 {
                events.append(request(index, template: "https://cdn.example.com/img/:id.png", version: "3.2.0", network: "wifi",
                                      status: 200, totalMs: 40, ttfbMs: 30))
            }
            return events
        }

        @Test("a template splits by app version and network type with error rates, percentiles and phases",
              arguments: StoreKind.allCases)
        func breakdownAPI(kind: StoreKind) throws {
            let server = try TestServer(kind)
            #expect(try server.postEvents(Self.traffic()).status == 200)
            let now = SampleEvents.time(plusMilliseconds: 60_000)
            let result = try NetworkBreakdown(store: server.store).breakdown(
                projectID: server.project.id, template: "GET https://api.example.com/users/:id", days: 7, now: now)
            #expect(result.eventsRead == 17 && !result.truncated)
            let users = try #require(result.templates.first)
            #expect(result.templates.count == 1)
            #expect(users.total.requests == 12 && users.total.errors == 2 && users.total.clientErrors == 1)
            #expect(abs(users.total.errorRate - 2.0 / 12) < 1e-9)
            #expect(users.byVersion.map(\.key) == ["3.2.0", "3.3.0"])
            #expect(users.byNetwork.map(\.key) == ["wifi", "cellular"])
            let cellular = users.byNetwork[1]
            #expect(cellular.requests == 4 && cellular.errors == 2 && cellular.errorRate == 0.5)
            #expect(abs((cellular.p50Ms ?? 0) - 900) / 900 < 0.02, "percentiles within the histogram's 1 %")
            #expect(abs((cellular.phases.ttfb ?? 0) - 750) < 1e-9 && cellular.phases.dns == 100)
            let wifi = users.byNetwork[0]
            #expect(wifi.errorRate == 0 && abs((wifi.p95Ms ?? 0) - 100) / 100 < 0.02 && wifi.phases.dns == 10)
            #expect(users.byVersion[1].requests == 4 && users.byVersion[1].errorRate == 0.5)

            // Every template, slowest p95 first, after all requests together.
            let all = try NetworkBreakdown(store: server.store).breakdown(projectID: server.project.id, days: 7, now: now)
            #expect(all.templates.map(\.template) == ["*", "GET https://api.example.com/users/:id",
                                                      "GET https://cdn.example.com/img/:id.png"])
            #expect(all.templates[0].total.requests == 17)
            // A version filter and a bounded read.
            let newest = try NetworkBreakdown(store: server.store).breakdown(projectID: server.project.id, version: "3.3.0", now: now)
            #expect(newest.templates.first?.total.requests == 4)
            let bounded = try NetworkBreakdown(store: server.store, maximumEvents: 5).breakdown(projectID: server.project.id, now: now)
            #expect(bounded.eventsRead == 5 && bounded.truncated)
            // Events older than the window are left out.
            let later = try NetworkBreakdown(store: server.store).breakdown(projectID: server.project.id, days: 1,
                                                                            now: now.addingTimeInterval(3 * 86_400))
            #expect(later.templates.isEmpty && later.eventsRead == 0)
        }

        @Test("the breakdown is served as JSON and as a dashboard page linked from the network page", arguments: StoreKind.allCases)
        func served(kind: StoreKind) throws {
            let server = try TestServer(kind)
            // Recent traffic: the page reads the last days before the server's clock.
            let shift = Date().timeIntervalSince(SampleEvents.time) - 3600
            let events = Self.traffic().map { event -> Event in
                var moved = event
                moved.time = event.time.addingTimeInterval(shift)
                return moved
            }
            #expect(try server.postEvents(events).status == 200)
            let template = "GET https://api.example.com/users/:id"
            let api = try server.adminGet("/api/v1/network/breakdown?template=\(HTML.queryComponent(template))")
            #expect(api.status == 200, "\(api)")
            let templates = try #require(api.json["templates"] as? [[String: Any]])
            let byNetwork = try #require(templates.first?["byNetwork"] as? [[String: Any]])
            #expect(byNetwork.compactMap { $0["key"] as? String } == ["wifi", "cellular"])
            #expect(try server.client.get("/api/v1/network/breakdown").status == 401)
            #expect(try server.adminGet("/api/v1/network/breakdown?days=0").status == 400)

            let page = try server.adminGet("/network/breakdown?template=\(HTML.queryComponent(template))")
            #expect(page.status == 200)
            for text in ["By network type", "By app version", "cellular", "3.3.0", "50.0%"] {
                #expect(page.text.contains(text), "the page shows \(text)")
            }
            #expect(try server.adminGet("/network").text.contains("href=\"/network/breakdown\""))
            let overview = try server.adminGet("/network/breakdown")
            #expect(overview.text.contains("All requests") && overview.text.contains("cdn.example.com"))
        }
    }
}
