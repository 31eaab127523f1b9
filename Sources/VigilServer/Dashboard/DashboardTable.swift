/// A plain listing table of the dashboard (the Symbols and Alerts pages): a header row, one row
/// per item, numeric columns right-aligned (`class="num"`), and a sentence instead of the table
/// when there is nothing to list.
///
/// Cells say how their value is written: ``Cell/text(_:)`` and ``Cell/code(_:)`` escape it,
/// ``Cell/markup(_:)`` is markup this module wrote (escape whatever came from outside first).
enum DashboardTable {
    /// One column: its header and whether it holds numbers.
    struct Column {
        var title: String
        var numeric: Bool

        /// A text column.
        static func text(_ title: String) -> Column { Column(title: title, numeric: false) }
        /// A right-aligned number column.
        static func number(_ title: String) -> Column { Column(title: title, numeric: true) }
    }

    /// One cell's content.
    enum Cell {
        /// Text, escaped.
        case text(String)
        /// Text, escaped, in `<code>`.
        case code(String)
        /// Markup written by this module, as it is.
        case markup(String)
    }

    /// Appends the table of `items` to `html` (`row` gives each item's cells, one per column),
    /// or `<p class="empty">empty</p>` when there are none.
    static func render<Item>(_ items: [Item], columns: [Column], empty: String, into html: inout HTML, row: (Item) -> [Cell]) {
        guard !items.isEmpty else {
            html.raw("<p class=\"empty\">")
            html.text(empty)
            html.raw("</p>")
            return
        }
        html.raw("<table><thead><tr>")
        for column in columns {
            html.raw(column.numeric ? "<th class=\"num\">" : "<th>")
            html.text(column.title)
            html.raw("</th>")
        }
        html.raw("</tr></thead><tbody>")
        for item in items {
            let cells = row(item)
            precondition(cells.count == columns.count, "a row of \(cells.count) cells in a table of \(columns.count) columns")
            html.raw("<tr>")
            for (column, cell) in zip(columns, cells) {
                html.raw(column.numeric ? "<td class=\"num\">" : "<td>")
                switch cell {
                case .text(let value): html.text(value)
                case .code(let value):
                    html.raw("<code>")
                    html.text(value)
                    html.raw("</code>")
                case .markup(let value): html.raw(value)
                }
                html.raw("</td>")
            }
            html.raw("</tr>")
        }
        html.raw("</tbody></table>")
    }
}
