import Foundation
import VigilCore
import VigilTestSupport
@testable import VigilServer

/// A symbolication engine for tests, standing in for `VigilSymbols` behind the same protocol:
/// an "upload" is JSON naming a debug id and function ranges, and its "SymCache" is the range
/// list itself.
struct TableSymbolication: SymbolicationEngine {
    struct Range: Codable, Sendable {
        var start: UInt64
        var end: UInt64
        var function: String
        var file: String?
        var line: Int?
        /// A function inlined at this range, reported before `function`.
        var inlined: String?
    }

    struct Upload: Codable, Sendable {
        var debugId: String
        var arch: String
        var name: String
        var ranges: [Range]
    }

    struct Table: SymbolTable {
        let ranges: [Range]
        func locations(at offset: UInt64, isReturnAddress: Bool) -> [SymbolLocation] {
            let offset = isReturnAddress && offset > 0 ? offset - 1 : offset
            guard let range = ranges.first(where: { $0.start <= offset && offset < $0.end }) else { return [] }
            let outer = SymbolLocation(function: range.function, file: range.file, line: range.line)
            return range.inlined.map { [SymbolLocation(function: $0), outer] } ?? [outer]
        }
    }

    func slices(ofUpload file: URL) throws -> [SymbolSlice] {
        let uploads = try JSONDecoder().decode([Upload].self, from: Data(contentsOf: file))
        return try uploads.map { upload in
            SymbolSlice(debugID: upload.debugId, arch: upload.arch, kind: "test", name: upload.name,
                        symcache: try JSONEncoder().encode(upload.ranges))
        }
    }

    func table(fromSymCache data: Data) throws -> any SymbolTable {
        Table(ranges: try JSONDecoder().decode([Range].self, from: data))
    }

    /// Symbols for `SampleEvents.mainImage`'s functions (offsets 0x1a00–0x1b00 and 0x0f00–0x1000).
    static func sampleUpload(debugID: String = SampleEvents.mainImage.id) -> Upload {
        Upload(debugId: debugID, arch: "arm64", name: "Shop", ranges: [
            Range(start: 0x1a00, end: 0x1b00, function: "CheckoutViewController.pay()", file: "Checkout.swift", line: 42,
                  inlined: "PriceFormatter.format(_:)"),
            Range(start: 0x0f00, end: 0x1000, function: "AppDelegate.main()", file: "AppDelegate.swift", line: 7),
        ])
    }

    /// The slices of `uploads`, as the engine would make them.
    static func slices(_ uploads: [Upload]) throws -> [SymbolSlice] {
        try uploads.map { upload in
            SymbolSlice(debugID: upload.debugId, arch: upload.arch, kind: "test", name: upload.name,
                        symcache: try JSONEncoder().encode(upload.ranges))
        }
    }
}
