import Foundation

/// Inline SVG charts for the dashboard: horizontal bars, stacked bars and lines. Labels are
/// escaped; sizes are in CSS pixels; the charts scale with `viewBox`.
public enum SVGChart {
    /// One bar: a label, a value and an optional caption drawn after the bar.
    public struct Bar {
        /// Text drawn before the bar.
        public var label: String
        /// The bar's length in data units.
        public var value: Double
        /// Text drawn after the bar.
        public var caption: String

        /// Creates a bar.
        public init(label: String, value: Double, caption: String) {
            self.label = label
            self.value = value
            self.caption = caption
        }
    }

    /// One stacked bar: a label and its segments (name, value) in drawing order.
    public struct Stack {
        /// Text drawn before the bar.
        public var label: String
        /// (name, value) pairs in drawing order.
        public var segments: [(String, Double)]

        /// Creates a stacked bar.
        public init(label: String, segments: [(String, Double)]) {
            self.label = label
            self.segments = segments
        }
    }

    /// One line series: a name and its points (x index, y value).
    public struct Series {
        /// Display name.
        public var name: String
        /// (x index, y value) pairs.
        public var points: [(Int, Double)]

        /// Creates a series.
        public init(name: String, points: [(Int, Double)]) {
            self.name = name
            self.points = points
        }
    }

    static let palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f"]

    /// Horizontal bars, longest = full width.
    public static func bars(_ bars: [Bar], title: String, color: String = "#4e79a7") -> String {
        guard !bars.isEmpty else { return "<p class=\"empty\">No data yet.</p>" }
        let row = 24
        let labelWidth = 260
        let barWidth = 420
        let height = bars.count * row + 28
        let maximum = max(bars.map(\.value).max() ?? 1, 1e-9)
        var svg = "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 \(labelWidth + barWidth + 160) \(height)\" "
            + "width=\"\(labelWidth + barWidth + 160)\" height=\"\(height)\"><title>\(HTML.escape(title))</title>"
        for (index, bar) in bars.enumerated() {
            let y = 20 + index * row
            let width = max(1, Int((bar.value / maximum) * Double(barWidth)))
            svg += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 15)\" text-anchor=\"end\">\(HTML.escape(String(bar.label.prefix(40))))</text>"
            svg += "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(width)\" height=\"\(row - 8)\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(labelWidth + width + 6)\" y=\"\(y + 15)\">\(HTML.escape(bar.caption))</text>"
        }
        return svg + "</svg>"
    }

    /// Horizontal stacked bars with a legend (e.g. a request's DNS/TCP/TLS/TTFB/response phases).
    public static func stacked(_ stacks: [Stack], title: String, unit: String) -> String {
        guard !stacks.isEmpty else { return "<p class=\"empty\">No data yet.</p>" }
        let row = 24
        let labelWidth = 300
        let barWidth = 420
        let names = stacks.first?.segments.map(\.0) ?? []
        let height = stacks.count * row + 48
        let maximum = max(stacks.map { $0.segments.reduce(0) { $0 + $1.1 } }.max() ?? 1, 1e-9)
        var svg = "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 \(labelWidth + barWidth + 120) \(height)\" "
            + "width=\"\(labelWidth + barWidth + 120)\" height=\"\(height)\"><title>\(HTML.escape(title))</title>"
        for (index, name) in names.enumerated() {
            let x = labelWidth + index * 80
            svg += "<rect x=\"\(x)\" y=\"4\" width=\"12\" height=\"12\" fill=\"\(palette[index % palette.count])\"/>"
            svg += "<text x=\"\(x + 16)\" y=\"15\">\(HTML.escape(name))</text>"
        }
        for (index, stack) in stacks.enumerated() {
            let y = 28 + index * row
            svg += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 15)\" text-anchor=\"end\">\(HTML.escape(String(stack.label.prefix(46))))</text>"
            var x = Double(labelWidth)
            for (segment, (name, value)) in stack.segments.enumerated() where value > 0 {
                let width = value / maximum * Double(barWidth)
                svg += "<rect x=\"\(format(x))\" y=\"\(y + 3)\" width=\"\(format(max(width, 0.5)))\" height=\"\(row - 8)\" "
                    + "fill=\"\(palette[segment % palette.count])\"><title>\(HTML.escape(name)) \(format(value)) \(unit)</title></rect>"
                x += width
            }
            let total = stack.segments.reduce(0) { $0 + $1.1 }
            svg += "<text x=\"\(format(x + 6))\" y=\"\(y + 15)\">\(format(total)) \(HTML.escape(unit))</text>"
        }
        return svg + "</svg>"
    }

    /// Lines over a shared x axis labelled by `xLabels`.
    public static func lines(_ series: [Series], xLabels: [String], title: String, unit: String) -> String {
        let points = series.flatMap(\.points)
        guard !points.isEmpty, !xLabels.isEmpty else { return "<p class=\"empty\">No data yet.</p>" }
        let width = 720.0
        let height = 240.0
        let left = 60.0
        let bottom = 30.0
        let top = 30.0
        let maximum = max(points.map(\.1).max() ?? 1, 1e-9) * 1.1
        let step = xLabels.count > 1 ? (width - left - 20) / Double(xLabels.count - 1) : 0
        func x(_ index: Int) -> Double { left + Double(index) * step + (xLabels.count == 1 ? (width - left) / 2 : 0) }
        func y(_ value: Double) -> Double { top + (height - top - bottom) * (1 - value / maximum) }
        var svg = "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" "
            + "height=\"\(Int(height))\"><title>\(HTML.escape(title))</title>"
        svg += "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width - 10)\" y2=\"\(height - bottom)\" stroke=\"#999\"/>"
        for fraction in [0.0, 0.5, 1.0] {
            let value = maximum / 1.1 * fraction
            svg += "<text x=\"\(left - 6)\" y=\"\(format(y(value) + 4))\" text-anchor=\"end\">\(format(value))</text>"
        }
        let labelEvery = max(1, xLabels.count / 8)
        for (index, label) in xLabels.enumerated() where index % labelEvery == 0 {
            svg += "<text x=\"\(format(x(index)))\" y=\"\(height - 10)\" text-anchor=\"middle\">\(HTML.escape(label))</text>"
        }
        for (number, line) in series.enumerated() {
            let color = palette[number % palette.count]
            let path = line.points.sorted { $0.0 < $1.0 }.map { "\(format(x($0.0))),\(format(y($0.1)))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(path)\"/>"
            for (index, value) in line.points {
                svg += "<circle cx=\"\(format(x(index)))\" cy=\"\(format(y(value)))\" r=\"3\" fill=\"\(color)\">"
                    + "<title>\(HTML.escape(line.name)): \(format(value)) \(HTML.escape(unit))</title></circle>"
            }
            svg += "<text x=\"\(left + 10 + Double(number) * 120)\" y=\"16\" fill=\"\(color)\">\(HTML.escape(String(line.name.prefix(16))))</text>"
        }
        return svg + "</svg>"
    }

    /// A number with at most one decimal, no trailing `.0`.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(format: "%.1f", rounded)
    }
}
