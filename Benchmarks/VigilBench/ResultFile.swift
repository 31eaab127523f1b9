import Foundation

/// Writes a suite's result document (`bench-results/<suite>.json` unless the suite was told
/// otherwise): pretty-printed JSON with sorted keys, its directory created when missing.
enum ResultFile {
    /// Writes `object` (JSON-serialisable dictionaries, arrays, strings and numbers) to `path`;
    /// returns the bytes written.
    @discardableResult
    static func write(_ object: [String: Any], to path: String) throws -> Data {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try write(data, to: path)
        return data
    }

    /// Writes `document` as JSON to `path`; returns the bytes written.
    @discardableResult
    static func write(_ document: some Encodable, to path: String) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(document)
        try write(data, to: path)
        return data
    }

    private static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }
}
