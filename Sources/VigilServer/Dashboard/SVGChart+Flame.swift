import Foundation

extension SVGChart {
    /// Width of a flame graph, in CSS pixels.
    static let flameWidth = 1000.0
    /// Height of one flame graph row.
    static let flameRow = 18

    /// A flame graph of `root` (root on top, callees below, each frame as wide as its samples),
    /// the app's own frames in orange with class `inapp`, the others in blue-grey. Every frame
    /// carries its sample count (`data-samples`) and a tooltip; names are escaped and cut to fit.
    /// The SVG's size is bounded by what ``FlameTree/root(minimumFraction:maximumDepth:)`` kept.
    public static func flameGraph(_ root: FlameNode, title: String) -> String {
        guard root.samples > 0 else { return "<p class=\"empty\">No sampled stacks yet.</p>" }
        let layout = FlameLayout(root)
        let height = layout.depth * flameRow + 24
        let total = Double(layout.total)
        var svg = "<svg class=\"chart flame\" role=\"img\" viewBox=\"0 0 \(Int(flameWidth)) \(height)\" width=\"\(Int(flameWidth))\" "
            + "height=\"\(height)\" data-samples=\"\(layout.total)\"><title>\(HTML.escape(title))</title>"
        svg += "<rect x=\"4\" y=\"4\" width=\"10\" height=\"10\" fill=\"#f28e2b\"/><text x=\"18\" y=\"13\">the app's own code</text>"
            + "<rect x=\"150\" y=\"4\" width=\"10\" height=\"10\" fill=\"#9fb3c8\"/><text x=\"164\" y=\"13\">system and runtime</text>"
        for cell in layout.cells {
            let x = Double(cell.offset) / total * flameWidth
            let width = Double(cell.samples) / total * flameWidth
            let y = 20 + cell.depth * flameRow
            let fill = cell.depth == 0 ? "#c7ccd6" : (cell.inApp ? (cell.depth % 2 == 0 ? "#f28e2b" : "#f5a554")
                                                                  : (cell.depth % 2 == 0 ? "#9fb3c8" : "#b6c6d8"))
            let share = Double(cell.samples) / total * 100
            svg += "<g><rect\(cell.inApp ? " class=\"inapp\"" : "") x=\"\(format(x))\" y=\"\(y)\" width=\"\(format(max(width - 0.5, 0.5)))\" "
                + "height=\"\(flameRow - 1)\" fill=\"\(fill)\" data-samples=\"\(cell.samples)\"><title>"
                + HTML.escape(cell.name) + " — \(cell.samples) sample\(cell.samples == 1 ? "" : "s") (\(format(share))%)</title></rect>"
            let characters = Int((width - 6) / 7)
            if characters >= 4 {
                let name = cell.name.count > characters ? String(cell.name.prefix(characters - 1)) + "…" : cell.name
                svg += "<text x=\"\(format(x + 3))\" y=\"\(y + 13)\" font-size=\"11\">\(HTML.escape(name))</text>"
            }
            svg += "</g>"
        }
        return svg + "</svg>"
    }
}
