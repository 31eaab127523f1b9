import Foundation
import Testing
import VigilCore
import VigilTestSupport
@testable import VigilServer

extension BothStores {
    /// The pictures' API endpoints and pages over HTTP, on both databases: the numbers the SVG
    /// carries are the API's, and the filter changes both.
    @Suite("dashboard pictures over HTTP")
    struct DashboardPicturesServerTests {
        static func attribute(_ name: String, in text: String) -> [Int64] {
            text.components(separatedBy: "\(name)=\"").dropFirst().compactMap { Int64($0.prefix { $0 != "\"" }) }
        }

        @Test("hang flame graphs merge every event's sampled stacks, symbolicated, in-app frames marked, narrowed by page, release and issue",
              arguments: StoreKind.allCases)
        func hangFlameGraph(kind: StoreKind) throws {
            let server = try TestServer(kind, symbolication: TableSymbolication())
            try PicturesFixture.populate(server)
            let all = try server.adminGet("/api/v1/flamegraph?source=hangs").json
            let hangs = PicturesFixture.hangs.reduce(0) { $0 + $1.count }
            #expect(all["events"] as? Int == hangs && all["eventsWithStacks"] as? Int == hangs)
            #expect(all["samples"] as? Int64 == Int64(hangs) * PicturesFixture.samplesPerHang)
            let root = try #require(all["root"] as? [String: Any])
            // Outermost first: the system frame (0x1e0001234), then AppDelegate.main(), then the inlined
            // PriceFormatter.format(_:) inside CheckoutViewController.pay() for the deep stack.
            let outer = try #require((root["children"] as? [[String: Any]])?.first)
            #expect(outer["name"] as? String == "libsystem_kernel.dylib + 0x1234" && outer["inApp"] as? Bool == false, "\(outer)")
            let app = try #require((outer["children"] as? [[String: Any]])?.first)
            #expect(app["name"] as? String == "AppDelegate.main() (AppDelegate.swift:7)" && app["inApp"] as? Bool == true, "\(app)")
            #expect(app["samples"] as? Int64 == Int64(hangs) * 50)
            let pay = try #require((app["children"] as? [[String: Any]])?.first)
            #expect((pay["name"] as? String)?.hasPrefix("CheckoutViewController.pay()") == true && pay["samples"] as? Int64 == Int64(hangs) * 40)
            #expect(((pay["children"] as? [[String: Any]])?.first?["name"] as? String) == "PriceFormatter.format(_:)")

            let checkout = try server.adminGet("/api/v1/flamegraph?page=Checkout").json
            #expect(checkout["samples"] as? Int64 == 7 * PicturesFixture.samplesPerHang)
            let release = try server.adminGet("/api/v1/flamegraph?page=Checkout&release=2.0.0").json
            #expect(release["samples"] as? Int64 == 3 * PicturesFixture.samplesPerHang)
            let issueID = try #require(try server.store.issues(projectID: server.project.id, kind: "hang").first?.id)
            let issue = try server.adminGet("/api/v1/flamegraph?issue=\(issueID)").json
            #expect(issue["samples"] as? Int64 == Int64(hangs) * PicturesFixture.samplesPerHang, "every fixture hang is one issue")
            #expect(try server.adminGet("/api/v1/flamegraph?source=sideways").status == 400)
            #expect(try server.adminGet("/api/v1/flamegraph?issue=x").status == 400)

            // The pages draw the same numbers.
            let page = try server.adminGet("/hangs?range=all&page=Checkout").text
            #expect(page.contains("<svg class=\"chart flame\""))
            #expect(Self.attribute("data-samples", in: page).first == 7 * PicturesFixture.samplesPerHang)
            #expect(page.contains("<rect class=\"inapp\""))
            let issuePage = try server.adminGet("/issues/\(issueID)?range=all").text
            #expect(Self.attribute("data-samples", in: issuePage).first == Int64(hangs) * PicturesFixture.samplesPerHang)
        }

        @Test("frozen frames get a flame graph from their stacks, one sample each", arguments: StoreKind.allCases)
        func frozenFlameGraph(kind: StoreKind) throws {
            let server = try TestServer(kind, symbolication: TableSymbolication())
            try PicturesFixture.populate(server)
            let frozen = try server.adminGet("/api/v1/flamegraph?source=frozen").json
            #expect(frozen["samples"] as? Int64 == 3 && frozen["eventsWithStacks"] as? Int == 3)
            let page = try server.adminGet("/frames?range=all").text
            #expect(Self.attribute("data-samples", in: page).first == 3)
            #expect(page.contains("AppDelegate.main()"))
        }

        @Test("distributions come from the roll-ups or the events, and agree with the pages", arguments: StoreKind.allCases)
        func distributions(kind: StoreKind) throws {
            let server = try TestServer(kind, symbolication: TableSymbolication())
            try PicturesFixture.populate(server)
            let hangs = try server.adminGet("/api/v1/distributions/hang.duration").json
            #expect(hangs["total"] as? Int64 == 9)
            let bins = try #require(hangs["bins"] as? [[String: Any]])
            #expect(bins.reduce(Int64(0)) { $0 + ($1["count"] as? Int64 ?? 0) } == 9)
            #expect(try server.adminGet("/api/v1/distributions/hang.duration?page=Home").json["total"] as? Int64 == 2)
            // OS version is not in the roll-ups: read from the events, same answer.
            #expect(try server.adminGet("/api/v1/distributions/hang.duration?os=18.1").json["total"] as? Int64 == 9)
            #expect(try server.adminGet("/api/v1/distributions/hang.duration?os=17.0").json["total"] as? Int64 == 0)
            #expect(try server.adminGet("/api/v1/distributions/network.total?release=1.0.0").json["total"] as? Int64 == 6)
            #expect(try server.adminGet("/api/v1/distributions/network.total?page=Checkout").json["total"] as? Int64 == 12)
            let ttid = try server.adminGet("/api/v1/distributions/launch.ttid?dimension=cold").json
            #expect(ttid["total"] as? Int64 == 5)
            #expect(try server.adminGet("/api/v1/distributions/launch.ttid?dimension=cold&device=iPhone14,2").json["total"] as? Int64 == 5)
            #expect(try server.adminGet("/api/v1/distributions/nope").status == 404)

            for (path, metric) in [("/hangs?range=all", "hang.duration"), ("/network?range=all", "network.total")] {
                let page = try server.adminGet(path).text
                let total = try server.adminGet("/api/v1/distributions/\(metric)").json["total"] as? Int64
                #expect(Self.attribute("data-total", in: page) == [total ?? -1], "\(path)")
            }
            let launch = try server.adminGet("/launch?range=all").text
            #expect(Self.attribute("data-total", in: launch) == [5])
        }

        @Test("the launch waterfall shows each release's phases and the median launch's tasks with the critical path",
              arguments: StoreKind.allCases)
        func launchWaterfall(kind: StoreKind) throws {
            let server = try TestServer(kind, symbolication: TableSymbolication())
            try PicturesFixture.populate(server)
            let report = try server.adminGet("/api/v1/launch/waterfall").json
            let releases = try #require(report["releases"] as? [[String: Any]])
            #expect(releases.compactMap { $0["version"] as? String } == ["2.0.0", "1.0.0"])
            let old = try #require(releases.last)
            #expect(old["launches"] as? Int64 == 3)
            // SampleEvents' launches: pre-main 310, +420 to didFinishLaunching; medians within the histogram's 1%.
            #expect(abs((old["mainMs"] as? Double ?? 0) - 310) < 4)
            #expect(abs((old["didFinishMs"] as? Double ?? 0) - 730) < 8)
            #expect(abs((old["firstFrameMs"] as? Double ?? 0) - 900) < 10)
            let typical = try #require(report["typical"] as? [String: Any])
            #expect(typical["ttidMs"] as? Double == 900 && typical["candidates"] as? Int == 3)
            let timeline = try #require(typical["timeline"] as? [String: Any])
            #expect(timeline["criticalPath"] as? [String] == PicturesFixture.criticalPath)
            #expect(abs((timeline["criticalPathMs"] as? Double ?? 0) - 57) < 0.01)
            let newer = try server.adminGet("/api/v1/launch/waterfall?release=2.0.0").json
            #expect(newer["typical"] == nil || newer["typical"] is NSNull, "2.0.0's launches carry no task spans")
            #expect(try server.adminGet("/api/v1/launch/waterfall?kind=sideways").status == 400)

            let page = try server.adminGet("/launch?range=all").text
            #expect(page.contains("Critical path (outlined in red): config → db-open → db-migrate → root-view (57 ms)"), "\(page)")
            #expect(page.components(separatedBy: "class=\"critical\"").count - 1 == 4)
            for mark in ["mainMs", "didFinishMs", "firstFrameMs", "fullyDrawnMs"] {
                let value = try #require(old[mark] as? Double)
                #expect(page.contains("data-end=\"\(SVGChart.format(value))\""), "the bar ending at \(mark) \(value)")
            }
            let narrowed = try server.adminGet("/launch?range=all&release=2.0.0").text
            #expect(!narrowed.contains("class=\"critical\""))
        }
    }
}
