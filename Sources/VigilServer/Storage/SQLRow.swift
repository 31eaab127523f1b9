/// One result row: values by column position, with the column names shared by every row of a
/// result.
public struct SQLRow: Sendable {
    /// Column names, lowercased, in select order.
    public let columns: ColumnNames
    /// The values, in select order.
    public let values: [SQLValue]

    /// Creates a row.
    public init(columns: ColumnNames, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of column `index`; `.null` past the end.
    public subscript(index: Int) -> SQLValue {
        index >= 0 && index < values.count ? values[index] : .null
    }

    /// The value of column `name` (case-insensitive); `.null` when there is no such column.
    public subscript(name: String) -> SQLValue {
        guard let index = columns.index(of: name) else { return .null }
        return self[index]
    }

    /// Column `name` as an integer, or 0.
    public func int64(_ name: String) -> Int64 { self[name].int64 ?? 0 }
    /// Column `name` as an `Int`, or 0.
    public func int(_ name: String) -> Int { self[name].int ?? 0 }
    /// Column `name` as a `Double`, or 0.
    public func double(_ name: String) -> Double { self[name].double ?? 0 }
    /// Column `name` as text, or nil.
    public func string(_ name: String) -> String? { self[name].string }
}

/// The column names of a result, shared by its rows (one allocation per result, not per row).
public final class ColumnNames: Sendable {
    /// Names in select order, lowercased.
    public let names: [String]
    private let positions: [String: Int]

    /// Creates the name table.
    public init(_ names: [String]) {
        self.names = names.map { $0.lowercased() }
        var positions: [String: Int] = [:]
        for (index, name) in self.names.enumerated() where positions[name] == nil { positions[name] = index }
        self.positions = positions
    }

    /// The position of `name`.
    public func index(of name: String) -> Int? { positions[name] ?? positions[name.lowercased()] }
}
