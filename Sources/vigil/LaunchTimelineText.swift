import Foundation

/// Renders a launch as a text timeline: one row per task with its lane, worker, start, run
/// and wait times, and a bar (`.` waiting for a core or lane, `#` running, `x` a run that
/// failed or timed out).
struct LaunchTimelineText {
    /// One task's row; times in ms from the launch's start.
    struct Row {
        var id: String
        var lane: String
        var worker: String?
        var readyMs: Double?
        var startMs: Double?
        var endMs: Double?
        var outcome: String
    }

    var rows: [Row]
    /// Bar width in characters.
    var width = 48

    func render() -> String {
        let finite = rows.flatMap { [$0.endMs, $0.readyMs] }.compactMap { $0 }.filter(\.isFinite)
        let span = max(finite.max() ?? 0, 0.001)
        let idWidth = min(max(rows.map(\.id.count).max() ?? 4, 4), 32)
        let laneWidth = min(max(rows.map(\.lane.count).max() ?? 4, 4), 24)
        func column(_ ms: Double) -> Int {
            let fraction = ms.isFinite ? min(max(ms / span, 0), 1) : 0
            return min(width, Int((fraction * Double(width)).rounded(.down)))
        }
        var text = pad("task", idWidth) + "  " + pad("lane", laneWidth) + "  " + pad("worker", 7)
            + "  " + lpad("start", 8) + "  " + lpad("run", 8) + "  " + lpad("wait", 7)
            + "  |0" + String(repeating: " ", count: max(0, width - 2 - format(span).count - 3)) + format(span) + " ms|\n"
        for row in rows {
            var bar = Array(repeating: Character(" "), count: width)
            if let start = row.startMs {
                if let ready = row.readyMs {
                    for index in column(ready)..<max(column(ready), column(start)) where index < width { bar[index] = "." }
                }
                let end = row.endMs ?? span
                let runChar: Character = row.outcome == "failed" || row.outcome == "timedOut" ? "x" : "#"
                let first = column(start)
                let last = max(first + 1, column(end))
                for index in first..<last where index < width { bar[index] = runChar }
            }
            let run = row.startMs.flatMap { start in row.endMs.map { format($0 - start) } }
                ?? (row.outcome == "skipped" ? "skipped" : row.outcome)
            let wait = row.readyMs.flatMap { ready in row.startMs.map { format(max(0, $0 - ready)) } } ?? "-"
            text += pad(row.id, idWidth) + "  " + pad(row.lane, laneWidth) + "  " + pad(row.worker ?? "-", 7)
                + "  " + lpad(row.startMs.map(format) ?? "-", 8) + "  " + lpad(run, 8) + "  " + lpad(wait, 7)
                + "  |" + String(bar) + "|\n"
        }
        return text
    }

    /// Milliseconds with one decimal.
    static func ms(_ value: Double) -> String { String(format: "%.1f", value) }

    private func format(_ value: Double) -> String { LaunchTimelineText.ms(value) }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count > width ? String(text.prefix(width - 1)) + "…" : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }

    private func lpad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
