import Foundation
import VigilCore

/// One source location an address resolves to. An address inside inlined code resolves to
/// several: the inlined callee first, the function it was inlined into last.
public struct SymbolLocation: Sendable, Hashable, Codable {
    /// Function name, demangled when the symbol source could.
    public var function: String
    /// Source file, when debug info has it.
    public var file: String?
    /// Source line, when debug info has it.
    public var line: Int?

    /// Creates a location.
    public init(function: String, file: String? = nil, line: Int? = nil) {
        self.function = function
        self.file = file
        self.line = line
    }
}

/// A symbol table for one image (one SymCache), answering address lookups.
///
/// Implementations are immutable after creation and safe to share across threads.
public protocol SymbolTable: Sendable {
    /// The locations for `offset` bytes past the image's load address (inlined first), empty
    /// when the offset is outside every known function.
    func locations(at offset: UInt64) -> [SymbolLocation]
}

/// The symbolication engine as the server needs it: turns uploaded debug files into SymCache
/// bytes, and SymCache bytes back into ``SymbolTable``s.
///
/// The server stores SymCaches (not the debug files) in `symbol_files`, so every server on the
/// same database can symbolicate. The engine lives in `VigilSymbols`; this protocol is the
/// seam that lets processing work (and record missing symbols) before it is plugged in.
public protocol SymbolicationEngine: Sendable {
    /// Every slice of a debug file (a dSYM bundle as zip or tar, a bare Mach-O or ELF, a fat
    /// binary), each with its SymCache. Throws with a reason a client can act on.
    func slices(ofUpload file: URL) throws -> [SymbolSlice]

    /// Opens SymCache bytes produced by ``slices(ofUpload:)``.
    func table(fromSymCache data: Data) throws -> any SymbolTable
}

/// One architecture slice of an uploaded debug file, converted.
public struct SymbolSlice: Sendable, Hashable {
    /// Mach-O UUID or ELF build id, normalized with ``DebugIdentifier/normalize(_:)``.
    public var debugID: String
    /// Architecture, e.g. `arm64`, `x86_64`.
    public var arch: String
    /// `macho`, `elf`, `dsym`…
    public var kind: String
    /// The image's file name.
    public var name: String
    /// The SymCache.
    public var symcache: Data

    /// Creates a slice.
    public init(debugID: String, arch: String, kind: String, name: String, symcache: Data) {
        self.debugID = DebugIdentifier.normalize(debugID)
        self.arch = arch
        self.kind = kind
        self.name = name
        self.symcache = symcache
    }
}

/// Turns crash-report files (`.ips`, legacy `.crash` text, MetricKit payloads) into schema-v1
/// events that go through ingest like any other; the readers live in `VigilReports`.
public protocol CrashReportImporter: Sendable {
    /// The events in `body`; `contentType` and `fileName` help tell the formats apart.
    func events(fromReport body: Data, contentType: String?, fileName: String?) throws -> [Event]
}

/// A classification of a crash or hang ("what kind of failure and why"), shown with its issue.
public struct IssueClassification: Sendable, Hashable, Codable {
    /// Short category, e.g. `nil-unwrap`, `main-thread-io`, `watchdog`.
    public var category: String
    /// One-sentence explanation.
    public var summary: String
    /// How sure the classifier is (0…1).
    public var confidence: Double?

    /// Creates a classification.
    public init(category: String, summary: String, confidence: Double? = nil) {
        self.category = category
        self.summary = summary
        self.confidence = confidence
    }
}

/// Explains a crash or hang from its event and resolved stack; provided by `VigilReports`.
public protocol IssueClassifier: Sendable {
    /// The classification, or nil when nothing is recognized.
    func classify(payload: EventPayload, frames: [ResolvedFrame]) -> IssueClassification?
}

/// Debug identifiers in one spelling: Mach-O UUIDs as uppercase dashed UUIDs, ELF build ids as
/// lowercase hex, whatever the uploader or the SDK wrote.
public enum DebugIdentifier {
    /// The normalized form of `id`.
    public static func normalize(_ id: String) -> String {
        let hex = id.lowercased().filter { $0 != "-" && !$0.isWhitespace }
        guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else { return hex }
        let upper = Array(hex.uppercased())
        return String(upper[0..<8]) + "-" + String(upper[8..<12]) + "-" + String(upper[12..<16]) + "-"
            + String(upper[16..<20]) + "-" + String(upper[20..<32])
    }
}
