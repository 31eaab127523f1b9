import Foundation

extension SVGChart {
    /// One bar of a timeline: where it starts and ends on the shared axis.
    public struct TimelineBar {
        /// Name drawn in the bar when it fits.
        public var name: String
        /// Start, in the axis unit.
        public var start: Double
        /// End, in the axis unit.
        public var end: Double
        /// Fill colour.
        public var color: String
        /// Whether to outline it (the critical path).
        public var emphasized: Bool
        /// Tooltip text.
        public var detail: String
        /// Drawn faint, as waiting rather than working.
        public var faint: Bool

        /// Creates a bar.
        public init(name: String, start: Double, end: Double, color: String, emphasized: Bool = false, detail: String,
                    faint: Bool = false) {
            self.name = name
            self.start = start
            self.end = end
            self.color = color
            self.emphasized = emphasized
            self.detail = detail
            self.faint = faint
        }
    }

    /// One row of a timeline: a label and its bars.
    public struct TimelineRow {
        /// Text before the row.
        public var label: String
        /// Bars on the row (they may overlap only if the data does).
        public var bars: [TimelineBar]
        /// Text after the row's last bar.
        public var caption: String

        /// Creates a row.
        public init(label: String, bars: [TimelineBar], caption: String = "") {
            self.label = label
            self.bars = bars
            self.caption = caption
        }
    }

    /// Rows of bars on one time axis from 0 (waterfalls: a release's launch phases, a launch's
    /// tasks on their threads). `legend` names colours; each bar has a tooltip and its start and
    /// end as `data-start`/`data-end` (in `unit`).
    public static func timeline(_ rows: [TimelineRow], title: String, unit: String, legend: [(String, String)] = []) -> String {
        let bars = rows.flatMap(\.bars)
        guard !bars.isEmpty else { return "<p class=\"empty\">No data yet.</p>" }
        let row = 24, labelWidth = 200, axisWidth = 640.0, captionWidth = 150
        let top = legend.isEmpty ? 8 : 26
        let height = top + rows.count * row + 24
        let width = labelWidth + Int(axisWidth) + captionWidth
        let maximum = max(bars.map(\.end).max() ?? 1, 1e-9)
        func x(_ value: Double) -> Double { Double(labelWidth) + max(0, value) / maximum * axisWidth }
        var svg = "<svg class=\"chart timeline\" role=\"img\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\">"
            + "<title>\(HTML.escape(title))</title>"
        var lx = labelWidth
        for (name, color) in legend {
            svg += "<rect x=\"\(lx)\" y=\"6\" width=\"12\" height=\"12\" fill=\"\(color)\"/><text x=\"\(lx + 16)\" y=\"16\">\(HTML.escape(name))</text>"
            lx += 16 + name.count * 7 + 18
        }
        for (index, line) in rows.enumerated() {
            let y = top + index * row
            svg += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 16)\" text-anchor=\"end\">\(HTML.escape(String(line.label.prefix(30))))</text>"
            for bar in line.bars {
                let start = x(bar.start), end = x(max(bar.end, bar.start))
                let barWidth = max(end - start, 1)
                svg += "<rect x=\"\(format(start))\" y=\"\(y + 4)\" width=\"\(format(barWidth))\" height=\"\(row - 8)\" fill=\"\(bar.color)\""
                    + (bar.faint ? " fill-opacity=\"0.3\"" : "")
                    + (bar.emphasized ? " class=\"critical\" stroke=\"#b00020\" stroke-width=\"2\"" : "")
                    + " data-start=\"\(format(bar.start))\" data-end=\"\(format(bar.end))\"><title>\(HTML.escape(bar.detail))</title></rect>"
                let characters = Int((barWidth - 6) / 7)
                if !bar.faint, characters >= 3 {
                    let name = bar.name.count > characters ? String(bar.name.prefix(characters - 1)) + "…" : bar.name
                    svg += "<text x=\"\(format(start + 3))\" y=\"\(y + 16)\" font-size=\"11\">\(HTML.escape(name))</text>"
                }
            }
            if !line.caption.isEmpty, let last = line.bars.map(\.end).max() {
                svg += "<text x=\"\(format(x(last) + 6))\" y=\"\(y + 16)\">\(HTML.escape(line.caption))</text>"
            }
        }
        let axisY = top + rows.count * row + 4
        svg += "<line x1=\"\(labelWidth)\" y1=\"\(axisY)\" x2=\"\(format(x(maximum)))\" y2=\"\(axisY)\" stroke=\"#999\"/>"
        for fraction in [0.0, 0.25, 0.5, 0.75, 1.0] {
            svg += "<text x=\"\(format(x(maximum * fraction)))\" y=\"\(axisY + 15)\" text-anchor=\"middle\">"
                + "\(format(maximum * fraction)) \(HTML.escape(unit))</text>"
        }
        return svg + "</svg>"
    }
}
