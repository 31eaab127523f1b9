import Foundation
import VigilCore

/// A dashboard view's time range and filters — release, OS version, device model, page — as
/// query parameters, so that a view is a link that can be shared.
///
/// Query parameters (all optional; an empty value counts as absent, as an unchosen `<select>`
/// sends it):
/// - `range`: `24h`, `7d`, `30d` (any `Nh` or `Nd` from 1 hour to 366 days), `all`, or `custom`
///   with `from` and `to`; `from`/`to` without `range` also mean a custom range. `from` and `to`
///   are `YYYY-MM-DD` (UTC days; `to` includes its day) or RFC 3339 times. `days=N` is accepted
///   for `range=Nd`.
/// - `release` (the app's marketing version; `version` is accepted too), `os` (OS version as
///   events report it, e.g. `17.4`), `device` (hardware model, e.g. `iPhone14,2`), `page`.
///
/// Value type, pure: every time computation takes `now`. Parsing never traps; bad input is a
/// ``DashboardFilterError`` naming the parameter.
public struct DashboardFilter: Sendable, Hashable {
    /// Which events by time.
    public enum TimeRange: Sendable, Hashable {
        /// The last `hours` hours up to now.
        case recent(hours: Int)
        /// From `from` (inclusive) to `to` (exclusive).
        case custom(from: Date, to: Date)
        /// Every event, whenever it happened.
        case all
    }

    /// One thing a filter can narrow by; its raw value is its query parameter.
    public enum Facet: String, Sendable, CaseIterable {
        case range, release, os, device, page
    }

    /// The time range shown when a link names none: the last 30 days.
    public static let defaultRange = TimeRange.recent(hours: 30 * 24)
    /// The ranges offered in the dashboard's range menu, with their labels.
    public static let presets: [(label: String, range: TimeRange)] = [
        ("Last 24 hours", .recent(hours: 24)), ("Last 7 days", .recent(hours: 7 * 24)),
        ("Last 30 days", .recent(hours: 30 * 24)), ("All time", .all),
    ]
    /// The longest relative range, in hours (366 days).
    public static let maximumHours = 366 * 24
    /// The longest filter value accepted, in characters.
    public static let maximumValueLength = 200

    /// Which events by time.
    public var range: TimeRange
    /// Only this app version (marketing version), when set.
    public var release: String?
    /// Only this OS version, when set.
    public var osVersion: String?
    /// Only this device model, when set.
    public var deviceModel: String?
    /// Only this page (screen), when set.
    public var page: String?

    /// A filter; by default the last 30 days, nothing else narrowed.
    public init(range: TimeRange = DashboardFilter.defaultRange, release: String? = nil, osVersion: String? = nil,
                deviceModel: String? = nil, page: String? = nil) {
        self.range = range
        self.release = release
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.page = page
    }

    /// Whether any filter other than the time range is set.
    public var narrows: Bool { release != nil || osVersion != nil || deviceModel != nil || page != nil }

    /// Whether the filter needs the events themselves: OS version and device model are columns
    /// of `apm_event` only; the roll-ups are kept by (metric, dimension, app version, day).
    public var needsRawEvents: Bool { osVersion != nil || deviceModel != nil }

    // MARK: Parsing

    /// Parses the filter from a request's query; `defaultRange` applies when none is named.
    public init(query: [String: String], defaultRange: TimeRange = DashboardFilter.defaultRange) throws(DashboardFilterError) {
        func value(_ name: String) -> String? {
            guard let text = query[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        func checked(_ name: String) throws(DashboardFilterError) -> String? {
            guard let text = value(name) else { return nil }
            guard text.count <= Self.maximumValueLength else {
                throw DashboardFilterError(parameter: name, value: text, reason: "longer than \(Self.maximumValueLength) characters")
            }
            guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw DashboardFilterError(parameter: name, value: text, reason: "contains a control character")
            }
            return text
        }
        var from: Date?
        var to: Date?
        if let text = value("from") { from = try Self.instant(text, parameter: "from", endOfDay: false) }
        if let text = value("to") { to = try Self.instant(text, parameter: "to", endOfDay: true) }
        let rangeText = value("range")
        if rangeText == "custom" || (rangeText == nil && (from != nil || to != nil)) {
            guard let from else {
                throw DashboardFilterError(parameter: "from", value: "", reason: "a custom range needs a start (YYYY-MM-DD or an RFC 3339 time)")
            }
            guard let to else {
                throw DashboardFilterError(parameter: "to", value: "", reason: "a custom range needs an end (YYYY-MM-DD or an RFC 3339 time)")
            }
            guard from < to else {
                throw DashboardFilterError(parameter: "to", value: value("to") ?? "", reason: "must be after from (\(value("from") ?? ""))")
            }
            range = .custom(from: from, to: to)
        } else if let rangeText {
            range = try Self.relative(rangeText, parameter: "range")
        } else if let days = value("days") {
            range = try Self.relative(days + "d", parameter: "days")
        } else {
            range = defaultRange
        }
        let version = try checked("version")
        release = try checked("release") ?? version
        osVersion = try checked("os")
        deviceModel = try checked("device")
        page = try checked("page")
    }

    /// `24h`, `7d`, `all`: a relative range or everything.
    private static func relative(_ text: String, parameter: String) throws(DashboardFilterError) -> TimeRange {
        if text == "all" { return .all }
        let expected = "expected 24h, 7d, 30d (any Nh or Nd up to 366d), all or custom"
        guard let unit = text.last, unit == "h" || unit == "d", let number = Int(text.dropLast()), number > 0 else {
            // `days=7` arrives here as `7d`; a bare number is named as it was given.
            throw DashboardFilterError(parameter: parameter, value: parameter == "days" ? String(text.dropLast()) : text,
                                       reason: parameter == "days" ? "expected a number of days, 1…366" : expected)
        }
        let (hours, overflow) = number.multipliedReportingOverflow(by: unit == "d" ? 24 : 1)
        guard !overflow, hours <= maximumHours else {
            throw DashboardFilterError(parameter: parameter, value: parameter == "days" ? String(text.dropLast()) : text,
                                       reason: "longer than 366 days")
        }
        return .recent(hours: hours)
    }

    /// A `from`/`to` value: `YYYY-MM-DD` (the day's start, or for `to` the next day's start) or an RFC 3339 time.
    private static func instant(_ text: String, parameter: String, endOfDay: Bool) throws(DashboardFilterError) -> Date {
        if let day = day(text) {
            return Date(timeIntervalSince1970: Double(day + (endOfDay ? 1 : 0)) * 86_400)
        }
        if text.count > 10, let date = Timestamp.parse(text) { return date }
        throw DashboardFilterError(parameter: parameter, value: text, reason: "expected YYYY-MM-DD or an RFC 3339 time such as 2026-11-29T20:00:00Z")
    }

    /// Days since 1970 of a `YYYY-MM-DD` that names a real day; nil otherwise.
    static func day(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int64(parts[0]), let month = Int64(parts[1]), let dayOfMonth = Int64(parts[2]),
              (1...12).contains(month), (1...31).contains(dayOfMonth) else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: dayOfMonth)
        // 2026-02-31 would roll over into March: refuse it rather than guess.
        let back = CivilCalendar.date(days: days)
        guard back.year == year, back.month == month, back.day == dayOfMonth else { return nil }
        return days
    }

    // MARK: Rendering

    /// The query parameters that reproduce this filter, in a fixed order; the default range is
    /// left out, so the plainest link stays plain.
    public var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        switch range {
        case Self.defaultRange: break
        case .all: items.append(("range", "all"))
        case .recent(let hours): items.append(("range", hours % 24 == 0 && hours != 24 ? "\(hours / 24)d" : "\(hours)h"))
        case .custom(let from, let to):
            items.append(("range", "custom"))
            items.append(("from", Self.render(from, end: false)))
            items.append(("to", Self.render(to, end: true)))
        }
        if let release { items.append(("release", release)) }
        if let osVersion { items.append(("os", osVersion)) }
        if let deviceModel { items.append(("device", deviceModel)) }
        if let page { items.append(("page", page)) }
        return items
    }

    /// ``queryItems`` percent-encoded and joined with `&` (no leading `?`; empty for the default filter).
    public var queryString: String {
        queryItems.map { "\(HTML.queryComponent($0.0))=\(HTML.queryComponent($0.1))" }.joined(separator: "&")
    }

    /// A day boundary as `YYYY-MM-DD` (for an end: the day before it, as `to` includes its day),
    /// any other instant as an RFC 3339 time.
    static func render(_ date: Date, end: Bool) -> String {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        guard millis.truncatingRemainder(dividingBy: 86_400_000) == 0 else { return Timestamp.format(date) }
        return dayString(Int64(millis / 86_400_000) - (end ? 1 : 0))
    }

    /// `YYYY-MM-DD` of a day number (days since 1970, UTC), as `from` and `to` take it.
    public static func dayString(_ day: Int64) -> String {
        let date = CivilCalendar.date(days: day)
        return String(format: "%04lld-%02lld-%02lld", date.year, date.month, date.day)
    }

    /// This filter without `facet` (the time range goes back to the default).
    public func removing(_ facet: Facet) -> DashboardFilter {
        var copy = self
        switch facet {
        case .range: copy.range = Self.defaultRange
        case .release: copy.release = nil
        case .os: copy.osVersion = nil
        case .device: copy.deviceModel = nil
        case .page: copy.page = nil
        }
        return copy
    }

    /// What is in force, for chips: each facet set (the range always) and its label.
    public var chips: [(facet: Facet, label: String)] {
        var chips: [(Facet, String)] = [(.range, rangeLabel)]
        if let release { chips.append((.release, "Release " + release)) }
        if let osVersion { chips.append((.os, "OS " + osVersion)) }
        if let deviceModel { chips.append((.device, "Device " + deviceModel)) }
        if let page { chips.append((.page, "Page " + page)) }
        return chips
    }

    /// The range in words: `Last 7 days`, `2026-11-01 – 2026-11-14`.
    public var rangeLabel: String {
        switch range {
        case .all: return "All time"
        case .recent(let hours):
            if hours % 24 == 0 { return hours == 24 ? "Last 24 hours" : "Last \(hours / 24) days" }
            return hours == 1 ? "Last hour" : "Last \(hours) hours"
        case .custom(let from, let to):
            return Self.render(from, end: false) + " – " + Self.render(to, end: true)
        }
    }

    // MARK: Time

    /// The range as milliseconds since 1970: start inclusive, end exclusive; nil where open.
    public func interval(now: Date) -> (start: Int64?, end: Int64?) {
        let nowMillis = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        switch range {
        case .all: return (nil, nil)
        case .recent(let hours): return (nowMillis - Int64(hours) * 3_600_000, nil)
        case .custom(let from, let to):
            return (Int64((from.timeIntervalSince1970 * 1000).rounded(.up)), Int64((to.timeIntervalSince1970 * 1000).rounded(.up)))
        }
    }

    /// The UTC days (since 1970) the range touches, first and last inclusive; nil where open.
    /// Roll-ups are kept per day, so a view served from them covers these whole days.
    public func days(now: Date) -> (first: Int64?, last: Int64?) {
        let (start, end) = interval(now: now)
        return (start.map { Self.floorDiv($0, 86_400_000) }, end.map { Self.floorDiv($0 - 1, 86_400_000) })
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    // MARK: SQL

    /// Conditions for a `WHERE` clause with their bound parameters: `sql` is empty or starts
    /// with ` AND `, so it appends to a clause that already names the project.
    public struct SQLFragment: Sendable, Hashable {
        /// ` AND a = ? AND b >= ?`, or empty.
        public var sql: String
        /// The parameters of `sql`'s placeholders, in order.
        public var arguments: [SQLValue]

        /// Conditions and their parameters; by default none.
        public init(sql: String = "", arguments: [SQLValue] = []) {
            self.sql = sql
            self.arguments = arguments
        }
    }

    /// The filter's conditions on `apm_event` (columns `occurred_at`, `app_version`,
    /// `os_version`, `device_model`, `page`), with an optional table alias (`e` → `e.page`).
    ///
    /// Cost: the time range is a range on `occurred_at`, served by the indexes that start with
    /// `(project_id, type, …)`, `(project_id, os_version, …)` and `(project_id, device_model, …)`.
    public func eventConditions(now: Date, alias: String? = nil) -> SQLFragment {
        let prefix = alias.map { $0 + "." } ?? ""
        var sql = ""
        var arguments: [SQLValue] = []
        let (start, end) = interval(now: now)
        if let start { sql += " AND \(prefix)occurred_at >= ?"; arguments.append(.integer(start)) }
        if let end { sql += " AND \(prefix)occurred_at < ?"; arguments.append(.integer(end)) }
        for (column, value) in [("app_version", release), ("os_version", osVersion), ("device_model", deviceModel), ("page", page)] {
            if let value { sql += " AND \(prefix)\(column) = ?"; arguments.append(.text(value)) }
        }
        return SQLFragment(sql: sql, arguments: arguments)
    }

    /// The filter's conditions on a roll-up table (`rollup_sums`, `rollup_histograms`,
    /// `rollup_sketches`): the days the range touches and the release; the page too when
    /// `pageIsDimension` (the metric's dimension is the page, as for hangs and frames).
    /// OS version and device model cannot be served here (``needsRawEvents``).
    public func rollupConditions(now: Date, pageIsDimension: Bool) -> SQLFragment {
        var sql = ""
        var arguments: [SQLValue] = []
        let (first, last) = days(now: now)
        if let first { sql += " AND day >= ?"; arguments.append(.integer(first)) }
        if let last { sql += " AND day <= ?"; arguments.append(.integer(last)) }
        if let release { sql += " AND app_version = ?"; arguments.append(.text(release)) }
        if pageIsDimension, let page { sql += " AND dimension = ?"; arguments.append(.text(page)) }
        return SQLFragment(sql: sql, arguments: arguments)
    }
}

/// A dashboard or query-API filter parameter that could not be read: which one, what it held
/// and why it was refused.
public struct DashboardFilterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The query parameter, e.g. `from`.
    public var parameter: String
    /// The value given (cut to 80 characters).
    public var value: String
    /// What was expected.
    public var reason: String

    /// Creates an error.
    public init(parameter: String, value: String, reason: String) {
        self.parameter = parameter
        self.value = String(value.prefix(80))
        self.reason = reason
    }

    /// `from "2026-13-01": expected YYYY-MM-DD …`.
    public var description: String {
        value.isEmpty ? "\(parameter): \(reason)" : "\(parameter) \"\(value)\": \(reason)"
    }
}
