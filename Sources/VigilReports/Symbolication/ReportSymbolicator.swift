import Foundation

/// Symbolicates a report's frames with a ``SymbolLookup``: every frame whose image UUID has
/// symbols gains its function, symbol offset, file and line, and inlined functions become
/// their own frames (``StackFrame/isInlined``) before it, as Apple's symbolicator writes them.
/// The report keeps its format, so writing it back gives a symbolicated `.ips`, text report
/// or MetricKit payload.
///
/// Return addresses (every frame but a stack's first) are looked up inside their call
/// instruction (``SymbolLookup`` moves them back), so that a call at the end of a function or
/// an inlined range resolves to the caller's line; symbol offsets are still measured to the
/// reported address.
/// Frames already symbolicated by the OS keep their names when their image has no symbols.
public struct ReportSymbolicator: Sendable {
    /// Where symbols come from.
    public var lookup: any SymbolLookup

    public init(lookup: any SymbolLookup) {
        self.lookup = lookup
    }

    /// The symbolicated report and what was found.
    public func symbolicate(_ report: CrashReport) -> SymbolicationResult {
        var state = State(report: report, lookup: lookup)
        var output = report
        for index in output.threads.indices {
            output.threads[index].frames = state.symbolicate(output.threads[index].frames)
            if let samples = output.threads[index].samples {
                // Samples repeat the thread's frames: counted once, through `frames`.
                output.threads[index].samples = samples.map { StackSample(frames: state.symbolicate($0.frames, counting: false), count: $0.count) }
            }
        }
        if let backtrace = output.lastExceptionBacktrace {
            output.lastExceptionBacktrace = state.symbolicate(backtrace)
        }
        return SymbolicationResult(report: output, summary: state.summary())
    }

    private struct State {
        let report: CrashReport
        let lookup: any SymbolLookup
        var available: [Int: Bool] = [:]
        var cache: [LookupKey: [SymbolicatedLocation]] = [:]
        var framesByImage: [Int: Int] = [:]
        var framesTotal = 0
        var framesSymbolicated = 0
        var framesWithoutImage = 0

        struct LookupKey: Hashable {
            var image: Int
            var offset: UInt64
            var isReturnAddress: Bool
        }

        init(report: CrashReport, lookup: any SymbolLookup) {
            self.report = report
            self.lookup = lookup
        }

        mutating func hasSymbols(_ imageIndex: Int) -> Bool {
            if let known = available[imageIndex] { return known }
            let image = report.images[imageIndex]
            let result = image.uuid.map { lookup.hasSymbols(forImage: $0, arch: image.arch) } ?? false
            available[imageIndex] = result
            return result
        }

        mutating func symbolicate(_ frames: [StackFrame], counting: Bool = true) -> [StackFrame] {
            var output: [StackFrame] = []
            output.reserveCapacity(frames.count)
            var pendingInlined: [StackFrame] = []
            var position = 0
            for frame in frames {
                if frame.isInlined {
                    pendingInlined.append(frame)
                    continue
                }
                defer { position += 1 }
                if counting { framesTotal += 1 }
                guard let imageIndex = frame.imageIndex, report.images.indices.contains(imageIndex) else {
                    if counting { framesWithoutImage += 1 }
                    output.append(contentsOf: pendingInlined)
                    output.append(frame)
                    pendingInlined.removeAll()
                    continue
                }
                if counting { framesByImage[imageIndex, default: 0] += 1 }
                guard hasSymbols(imageIndex), let uuid = report.images[imageIndex].uuid else {
                    output.append(contentsOf: pendingInlined)
                    output.append(frame)
                    pendingInlined.removeAll()
                    continue
                }
                let key = LookupKey(image: imageIndex, offset: frame.imageOffset, isReturnAddress: position > 0)
                let locations: [SymbolicatedLocation]
                if let cached = cache[key] {
                    locations = cached
                } else {
                    locations = lookup.symbolicate(image: uuid, arch: report.images[imageIndex].arch, imageOffset: frame.imageOffset,
                                                   isReturnAddress: position > 0)
                    cache[key] = locations
                }
                guard let outer = locations.last else {
                    output.append(contentsOf: pendingInlined)
                    output.append(frame)
                    pendingInlined.removeAll()
                    continue
                }
                // Inlined frames from an earlier symbolication are replaced by the new ones.
                pendingInlined.removeAll()
                if counting { framesSymbolicated += 1 }
                for location in locations.dropLast() {
                    output.append(located(frame, location, inlined: true))
                }
                output.append(located(frame, outer, inlined: false))
            }
            return output + pendingInlined
        }

        func located(_ frame: StackFrame, _ location: SymbolicatedLocation, inlined: Bool) -> StackFrame {
            var result = frame
            result.symbol = location.function
            result.symbolOffset = location.start.flatMap { frame.imageOffset >= $0 ? frame.imageOffset - $0 : nil }
            result.sourceFile = location.file.map { ($0 as NSString).lastPathComponent }
            result.sourceLine = location.line
            result.isInlined = inlined
            if inlined { result.textLine = nil }
            return result
        }

        func summary() -> SymbolicationSummary {
            var found: [ImageReference] = []
            var missing: [ImageReference] = []
            for (index, count) in framesByImage.sorted(by: { $0.key < $1.key }) {
                let image = report.images[index]
                let reference = ImageReference(name: image.name, uuid: image.uuid, arch: image.arch, origin: image.origin, frames: count)
                if available[index] == true { found.append(reference) } else if image.uuid != nil { missing.append(reference) }
            }
            return SymbolicationSummary(framesTotal: framesTotal, framesSymbolicated: framesSymbolicated,
                                        framesWithoutImage: framesWithoutImage, imagesWithSymbols: found, missingImages: missing)
        }
    }
}

/// A symbolicated report and what symbolication found.
public struct SymbolicationResult: Sendable, Hashable {
    /// The report with symbols added, in its original format.
    public var report: CrashReport
    /// Counts and the images without symbols.
    public var summary: SymbolicationSummary
}

/// What a symbolication pass found.
public struct SymbolicationSummary: Sendable, Hashable, Codable {
    /// Frames looked at (inlined frames not counted).
    public var framesTotal: Int
    /// Frames that gained a function name.
    public var framesSymbolicated: Int
    /// Frames whose image is unknown.
    public var framesWithoutImage: Int
    /// Images referenced by frames whose symbols were found.
    public var imagesWithSymbols: [ImageReference]
    /// Images referenced by frames, with a UUID, for which no dSYM, debug file or SymCache
    /// was given.
    public var missingImages: [ImageReference]

    /// Missing images that belong to the app (these need the app's dSYMs).
    public var missingAppImages: [ImageReference] { missingImages.filter { $0.origin != .system } }
    /// Missing images of the operating system (need the device's system symbols).
    public var missingSystemImages: [ImageReference] { missingImages.filter { $0.origin == .system } }
}

/// An image named in a symbolication summary.
public struct ImageReference: Sendable, Hashable, Codable {
    /// Image name.
    public var name: String
    /// Build UUID.
    public var uuid: String?
    /// Architecture.
    public var arch: String?
    /// App or system.
    public var origin: ImageOrigin
    /// Frames pointing into it.
    public var frames: Int
}
