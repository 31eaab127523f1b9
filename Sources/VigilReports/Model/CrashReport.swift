/// One crash, hang or diagnostic report, normalized from any supported format.
///
/// Every reader (`.ips`, Apple text, MetricKit, Vigil events) produces this type and every
/// writer consumes it. Frames are `(imageIndex, imageOffset)` pairs into ``images`` so a
/// report is independent of ASLR; absolute addresses are derived (``address(of:)``).
///
/// A reader that met damage it could work around (a truncated body, an unknown image index,
/// a malformed line) sets ``isPartial`` and lists what it skipped in ``problems``; input it
/// cannot use at all is a thrown ``ReportError``. Value type, `Sendable`.
public struct CrashReport: Sendable, Hashable, Codable {
    /// The format the report was read from.
    public var format: ReportFormat
    /// What the report describes.
    public var kind: ReportKind
    /// Apple's log type from the `.ips` metadata (`309` crash, `298` jetsam, `288` stackshot…).
    public var bugType: String?
    /// The report's unique identifier (`Incident Identifier`), when it has one.
    public var incidentID: String?
    /// The process that crashed or hung.
    public var process: ProcessDetails
    /// The app (bundle) the process belongs to.
    public var app: AppDetails
    /// The operating system and hardware.
    public var system: SystemDetails
    /// When the report was captured, as written in the report (`2026-03-17 22:50:41.6409 -0700`).
    public var captureTime: String?
    /// When the process launched, as written in the report.
    public var launchTime: String?
    /// The Mach exception and signal, when the report has them.
    public var exception: ExceptionDetails?
    /// How and by whom the process was terminated, when the report says.
    public var termination: TerminationDetails?
    /// The uncaught Objective-C, C++ or Swift error that ended the process, when known.
    public var languageException: LanguageException?
    /// `Application Specific Information` / `asi` lines, in order.
    public var applicationSpecificInfo: [String]
    /// `VM Region Info` for memory access crashes, as written.
    public var vmRegionInfo: String?
    /// Index into ``threads`` of the thread that triggered the crash, when known.
    public var triggeredThreadIndex: Int?
    /// Every thread, in report order.
    public var threads: [ThreadRecord]
    /// `Last Exception Backtrace`: where a language exception was thrown, innermost first.
    public var lastExceptionBacktrace: [StackFrame]?
    /// Binary images; ``StackFrame/imageIndex`` points into this array.
    public var images: [BinaryImage]
    /// Hang facts (hang and stackshot reports, MetricKit hang diagnostics).
    public var hang: HangDetails?
    /// Resource facts (MetricKit CPU, disk-write and launch diagnostics).
    public var resource: ResourceUsage?
    /// Jetsam facts (jetsam event reports).
    public var jetsam: JetsamDetails?
    /// Fields the report carries that the model has no place for, as name and text, e.g.
    /// MetricKit's `regionFormat`. Kept for display and for writing back.
    public var extraFields: [ReportField]
    /// Whether the reader had to skip damaged parts; ``problems`` says which.
    public var isPartial: Bool
    /// What the reader skipped or repaired, with the line or key path.
    public var problems: [ReportProblem]
    /// Position of this report among several in one file (0 for the first; a KSCrash file
    /// with a recrash, an `.ips` file of several documents). Nil when the file holds one report
    /// or when the reports of a file are independent peers (MetricKit diagnostics, event batches).
    public var documentIndex: Int?
    /// Whether the crash reporter itself crashed while writing the file's first report, and
    /// this report describes that second crash (KSCrash's recrash report). Nil means no.
    public var isRecrash: Bool?

    /// The parsed source document, kept so that a symbolicated report can be written back in
    /// its own format with every field it had. Not encoded; ignored by `==`.
    var original = OriginalDocument()

    /// A report with empty sections, for readers and tests to fill in.
    public init(format: ReportFormat, kind: ReportKind = .crash) {
        self.format = format
        self.kind = kind
        self.process = ProcessDetails()
        self.app = AppDetails()
        self.system = SystemDetails()
        self.applicationSpecificInfo = []
        self.threads = []
        self.images = []
        self.extraFields = []
        self.isPartial = false
        self.problems = []
    }

    enum CodingKeys: String, CodingKey {
        case format, kind, bugType, incidentID, process, app, system, captureTime, launchTime, exception,
             termination, languageException, applicationSpecificInfo, vmRegionInfo, triggeredThreadIndex,
             threads, lastExceptionBacktrace, images, hang, resource, jetsam, extraFields, isPartial, problems,
             documentIndex, isRecrash
    }

    /// The thread that triggered the crash, when known.
    public var triggeredThread: ThreadRecord? {
        guard let index = triggeredThreadIndex, threads.indices.contains(index) else { return nil }
        return threads[index]
    }

    /// The main thread: thread 0 of an Apple report, or the thread named or queued as the
    /// main thread.
    public var mainThread: ThreadRecord? {
        if let named = threads.first(where: { $0.isMainThread }) { return named }
        return threads.first(where: { $0.number == 0 && format != .metricKit })
    }

    /// The image a frame points into, when its index is valid.
    public func image(of frame: StackFrame) -> BinaryImage? {
        guard let index = frame.imageIndex, images.indices.contains(index) else { return nil }
        return images[index]
    }

    /// The absolute address of a frame: image base plus offset, or the offset itself when the
    /// frame has no image.
    public func address(of frame: StackFrame) -> UInt64 {
        guard let image = image(of: frame) else { return frame.imageOffset }
        return image.base &+ frame.imageOffset
    }

    /// Records a problem and marks the report partial.
    public mutating func note(_ location: String, _ message: String) {
        isPartial = true
        if problems.count < ReportLimits.maxProblems {
            problems.append(ReportProblem(location: location, message: message))
        }
    }

    /// Index of the image containing `address`, by address range; for images without a
    /// size, the closest base below `address` within 128 MiB (larger than any single image).
    public func imageIndex(containing address: UInt64) -> Int? {
        var best: Int?
        for (index, image) in images.enumerated() where image.base <= address {
            if let size = image.size, size > 0 {
                if address - image.base < size { return index }
                continue
            }
            guard address - image.base < 128 << 20 else { continue }
            if let current = best, images[current].base > image.base { continue }
            best = index
        }
        return best
    }
}

/// A name and value the model has no dedicated place for.
public struct ReportField: Sendable, Hashable, Codable {
    /// Field name as the report wrote it.
    public var name: String
    /// Field value as text.
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Something a reader had to skip or repair, and where.
public struct ReportProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `line 12` for text reports, a key path such as `threads[3].frames[2]` for JSON ones.
    public var location: String
    /// What was wrong and what the reader did about it.
    public var message: String

    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}

/// The source document of a report, kept for faithful writing back.
struct OriginalDocument: Sendable, Hashable {
    enum Content: Sendable {
        /// An `.ips` file: the metadata line and the report object.
        case ips(header: JSONValue, body: JSONValue)
        /// A text report, split into lines (without their line ends).
        case text(lines: [String])
        /// A MetricKit payload and the diagnostic's location in it.
        case metricKit(payload: JSONValue, listKey: String, index: Int)
        /// A Vigil event.
        case vigil(event: JSONValue)
    }

    var content: Content?

    static func == (lhs: OriginalDocument, rhs: OriginalDocument) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

extension CrashReport {
    /// Whether a frame runs the app's own code. Frames without an image are not.
    public func isInApp(_ frame: StackFrame) -> Bool {
        guard let image = image(of: frame) else { return false }
        return isAppImage(image)
    }

    /// Whether an image is the app's own code: the main executable or a file inside the app's
    /// bundle always; otherwise any image that is not system code by its path (`/System/`,
    /// `/usr/lib/`, an Xcode or simulator runtime, `/Library/Developer/`), by an Apple bundle
    /// identifier, or (for reports without paths) by a well-known system library name.
    public func isAppImage(_ image: BinaryImage) -> Bool {
        if let path = image.path, let executable = process.path, !executable.isEmpty {
            if path == executable { return true }
            if let bundle = Self.bundleDirectory(of: executable), path.hasPrefix(bundle) { return true }
        }
        if image.origin == .system || SystemLibraryNames.isSystem(image.name) { return false }
        if let bundleID = image.bundleID, BinaryImage.isAppleBundleID(bundleID) { return false }
        return true
    }

    /// `/…/Shop.app/` for `/…/Shop.app/Shop` (and macOS's `…/Shop.app/Contents/MacOS/Shop`).
    static func bundleDirectory(of executable: String) -> String? {
        guard let range = executable.range(of: ".app/", options: .backwards) else { return nil }
        return String(executable[..<range.upperBound])
    }
}
