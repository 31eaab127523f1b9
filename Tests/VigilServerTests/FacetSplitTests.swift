import Foundation
import Testing
@testable import VigilServer

/// How a filter on one OS version, device model or page is split between ClickHouse's facet
/// roll-ups (whole days) and the events (partial days at the ends of the range).
@Suite("facet roll-up split of a filtered range")
struct FacetSplitTests {
    static let day: Int64 = 86_400_000

    static func filter(start: Int64?, end: Int64?, os: String? = "18.1", device: String? = nil, page: String? = nil) -> RollupFilter {
        var filter = RollupFilter()
        filter.sinceDay = start.map { Int64((Double($0) / Double(day)).rounded(.down)) }
        filter.untilDay = end.map { Int64((Double($0 - 1) / Double(day)).rounded(.down)) }
        var events = EventNarrowing(DashboardFilter(range: .all), now: Date(), pageIsDimension: false)
        events.start = start
        events.end = end
        events.osVersion = os
        events.deviceModel = device
        events.page = page
        filter.events = events
        return filter
    }

    @Test("all time on one facet is read from the facet roll-ups alone")
    func allTime() throws {
        let split = try #require(FacetSplit(Self.filter(start: nil, end: nil, os: nil, device: "iPad13,1")))
        #expect(split.facet == "device" && split.value == "iPad13,1")
        #expect(split.hasWholeDays && split.sinceDay == nil && split.untilDay == nil && split.edges.isEmpty)
        #expect(FacetSplit(Self.filter(start: nil, end: nil, os: nil, page: "Cart"))?.facet == "page")
    }

    @Test("a range from midnight to midnight has no partial days")
    func wholeDays() throws {
        let split = try #require(FacetSplit(Self.filter(start: 20_783 * Self.day, end: 20_786 * Self.day)))
        #expect(split.hasWholeDays && split.sinceDay == 20_783 && split.untilDay == 20_785 && split.edges.isEmpty)
    }

    @Test("a range starting at noon reads that afternoon from the events and the days after from the roll-ups")
    func partialEnds() throws {
        let start = 20_783 * Self.day + Self.day / 2, end = 20_786 * Self.day + 1_000
        let split = try #require(FacetSplit(Self.filter(start: start, end: end)))
        #expect(split.hasWholeDays && split.sinceDay == 20_784 && split.untilDay == 20_785)
        #expect(split.edges == [start..<20_784 * Self.day, 20_786 * Self.day..<end])
        // The last 48 hours: open at the end, the first afternoon from the events.
        let recent = try #require(FacetSplit(Self.filter(start: start, end: nil)))
        #expect(recent.hasWholeDays && recent.sinceDay == 20_784 && recent.untilDay == nil && recent.edges == [start..<20_784 * Self.day])
    }

    @Test("a range within one day, or over two partial days, is read from the events alone")
    func noWholeDay() throws {
        let start = 20_783 * Self.day + 1_000
        let inside = try #require(FacetSplit(Self.filter(start: start, end: start + 3_600_000)))
        #expect(!inside.hasWholeDays && inside.edges == [start..<start + 3_600_000])
        let across = try #require(FacetSplit(Self.filter(start: start, end: 20_784 * Self.day + 5_000)))
        #expect(!across.hasWholeDays && across.edges == [start..<20_784 * Self.day, 20_784 * Self.day..<20_784 * Self.day + 5_000])
    }

    @Test("no facet, two facets at once or an empty range are not split (the events answer)")
    func notSplit() {
        #expect(FacetSplit(Self.filter(start: nil, end: nil, os: nil)) == nil)
        #expect(FacetSplit(Self.filter(start: nil, end: nil, os: "18.1", device: "iPad13,1")) == nil)
        #expect(FacetSplit(Self.filter(start: 5 * Self.day, end: 5 * Self.day)) == nil)
        #expect(FacetSplit(RollupFilter(version: "3.3.0")) == nil)
    }
}
