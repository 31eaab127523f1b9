import Foundation

extension SVGChart {
    /// A histogram of `report`'s bins on a log axis (each bar spans a factor of √2, or 2), with
    /// the median and the 95th percentile marked. The SVG carries the total (`data-total`) and
    /// each bar its count (`data-count`), for checks against the API.
    public static func histogram(_ report: DistributionReport, title: String) -> String {
        guard report.total > 0, !report.bins.isEmpty else { return "<p class=\"empty\">No data yet.</p>" }
        let width = 760.0, height = 230.0, left = 56.0, right = 16.0, top = 24.0, bottom = 44.0
        let bins = report.bins
        let barWidth = (width - left - right) / Double(bins.count)
        let maximum = Double(bins.map(\.count).max() ?? 1)
        func y(_ count: Double) -> Double { top + (height - top - bottom) * (1 - count / maximum) }
        var svg = "<svg class=\"chart histogram\" role=\"img\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" "
            + "height=\"\(Int(height))\" data-total=\"\(report.total)\"><title>\(HTML.escape(title))</title>"
        svg += "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width - right)\" y2=\"\(height - bottom)\" stroke=\"#999\"/>"
        for fraction in [0.0, 0.5, 1.0] {
            svg += "<text x=\"\(left - 6)\" y=\"\(format(y(maximum * fraction) + 4))\" text-anchor=\"end\">\(format(maximum * fraction))</text>"
        }
        let labelEvery = max(1, bins.count / 8)
        for (index, bin) in bins.enumerated() {
            let x = left + Double(index) * barWidth
            let range = bin.upper == 0 ? "0 ms" : "\(duration(bin.lower))–\(duration(bin.upper))"
            svg += "<rect x=\"\(format(x + 1))\" y=\"\(format(y(Double(bin.count))))\" width=\"\(format(max(barWidth - 2, 1)))\" "
                + "height=\"\(format(height - bottom - y(Double(bin.count))))\" fill=\"#4e79a7\" data-count=\"\(bin.count)\">"
                + "<title>\(range): \(bin.count)</title></rect>"
            if index % labelEvery == 0 {
                svg += "<text x=\"\(format(x))\" y=\"\(height - bottom + 16)\" text-anchor=\"middle\">\(duration(bin.lower))</text>"
            }
        }
        svg += "<text x=\"\((left + width - right) / 2)\" y=\"\(height - 8)\" text-anchor=\"middle\">"
            + "\(report.total) observations · log scale</text>"
        for (name, value, color) in [("p50", report.p50Ms, "#59a14f"), ("p95", report.p95Ms, "#e15759")] {
            guard let value, let x = logPosition(value, bins: bins, left: left, barWidth: barWidth) else { continue }
            svg += "<line x1=\"\(format(x))\" y1=\"\(top - 6)\" x2=\"\(format(x))\" y2=\"\(height - bottom)\" stroke=\"\(color)\" "
                + "stroke-width=\"2\" stroke-dasharray=\"4 3\"/><text x=\"\(format(x + 4))\" y=\"\(top - 8)\" fill=\"\(color)\">"
                + "\(name) \(duration(value))</text>"
        }
        return svg + "</svg>"
    }

    /// Where `value` falls on the histogram's axis: inside its bin, by its logarithm.
    static func logPosition(_ value: Double, bins: [LogBins.Bin], left: Double, barWidth: Double) -> Double? {
        for (index, bin) in bins.enumerated() where value <= bin.upper && (value > bin.lower || index == 0) {
            let fraction = bin.lower > 0 && bin.upper > bin.lower && value > 0
                ? (log(value) - log(bin.lower)) / (log(bin.upper) - log(bin.lower)) : 0.5
            return left + (Double(index) + min(max(fraction, 0), 1)) * barWidth
        }
        return nil
    }

    /// `120 ms`, `1.4 s`, `0.5 ms`.
    static func duration(_ ms: Double) -> String {
        if ms >= 1000 { return format(ms / 1000) + " s" }
        if ms >= 10 { return String(Int64(ms.rounded())) + " ms" }
        return format(ms) + " ms"
    }
}
