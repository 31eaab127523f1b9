import Foundation
import VigilCore
import VigilSymbols

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
    /// when the offset is outside every known function. `isReturnAddress` (every frame but a
    /// stack's first) moves the lookup back into the call instruction.
    func locations(at offset: UInt64, isReturnAddress: Bool) -> [SymbolLocation]
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
    /// Mach-O UUID or ELF build id, normalized with ``DebugIDSpelling/normalize(_:)``.
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
        self.debugID = DebugIDSpelling.normalize(debugID)
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

/// What the server shows as an issue's diagnosis: the failure's category and explanation.
public struct IssueClassification: Sendable, Hashable, Codable {
    /// Stable category, e.g. `null-pointer`, `watchdog`, `hang`.
    public var category: String
    /// One-line explanation.
    public var summary: String
    /// `high`, `medium` or `low`.
    public var confidence: String?
    /// What supports it: `location: value — meaning`.
    public var evidence: [String]
    /// What to do about it.
    public var advice: [String]

    /// Creates a classification.
    public init(category: String, summary: String, confidence: String? = nil, evidence: [String] = [], advice: [String] = []) {
        self.category = category
        self.summary = summary
        self.confidence = confidence
        self.evidence = evidence
        self.advice = advice
    }
}

/// A crash analyzer's verdict on one crash or hang: how to group it and what it is.
public struct CrashAnalysis: Sendable, Hashable {
    /// The grouping key (32 hex digits); replaces the server's own fingerprint.
    public var fingerprint: String
    /// The names (or other parts) that went into it, top first.
    public var components: [String]
    /// Whether the key rests on unsymbolicated frames (stable only within one build).
    public var provisional: Bool
    /// The diagnosis.
    public var classification: IssueClassification

    /// Creates a verdict.
    public init(fingerprint: String, components: [String], provisional: Bool, classification: IssueClassification) {
        self.fingerprint = fingerprint
        self.components = components
        self.provisional = provisional
        self.classification = classification
    }
}

/// Classifies and fingerprints crash and hang events with full crash-report knowledge
/// (throw/abort borders, watchdog codes, Swift runtime traps); provided by `VigilReports`.
/// Without one, the server groups by ``IssueFingerprint`` and shows no diagnosis.
public protocol CrashAnalyzer: Sendable {
    /// The verdict on a crash or hang `event`, symbolicating through `tables` (valid only
    /// during the call); nil when the event is neither.
    func analyze(_ event: Event, tables: any SymbolTableSource) -> CrashAnalysis?
}

/// Debug identifiers in one spelling — Mach-O UUIDs as uppercase dashed UUIDs, ELF build ids
/// as lowercase hex (`VigilSymbols.DebugIdentifier`'s) — whatever the uploader or the SDK wrote.
public enum DebugIDSpelling {
    /// The canonical spelling of `id`; text that is no identifier is only lowercased.
    public static func normalize(_ id: String) -> String {
        if isCanonical(id) { return id }
        if let parsed = VigilSymbols.DebugIdentifier(id) { return parsed.description }
        return id.lowercased()
    }

    /// Whether `id` is already spelled canonically (the common case; checked without parsing).
    static func isCanonical(_ id: String) -> Bool {
        let bytes = id.utf8
        if bytes.count == 36 {
            for (index, byte) in bytes.enumerated() {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    if byte != UInt8(ascii: "-") { return false }
                } else if !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46)) {
                    return false
                }
            }
            return true
        }
        guard bytes.count != 32, bytes.count >= 8, bytes.count <= 80 else { return false }
        return bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
