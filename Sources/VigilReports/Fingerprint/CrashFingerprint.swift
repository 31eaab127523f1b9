import Foundation

/// A grouping key for reports of the same problem: the diagnosis category plus the names of
/// the top in-app functions on the relevant stack.
///
/// Function names (not addresses or line numbers) make it stable across builds and ASLR
/// slides. The stack is cut at throw and abort borders (`objc_exception_throw`, `__cxa_throw`,
/// `abort`, Swift's `_assertionFailure`…): frames above them are the reporting machinery.
/// System frames and crash reporters' own frames (Vigil's, KSCrash, Sentry, Crashlytics) are
/// skipped, and a function repeated by recursion counts once. When no app frame has a name, the image and offset are used and the fingerprint
/// is marked ``Basis/unsymbolicated`` (stable only within one build).
public struct CrashFingerprint: Sendable, Hashable, Codable {
    /// What the fingerprint was computed from.
    public enum Basis: String, Sendable, Hashable, Codable {
        /// Names of in-app functions.
        case appFrames = "app-frames"
        /// No in-app frames: names of system functions.
        case systemFrames = "system-frames"
        /// In-app frames without names: image and offset (changes with every build).
        case unsymbolicated = "unsymbolicated"
        /// No frames at all: the exception, termination or jetsam reason.
        case reason = "reason"
    }

    /// 32 lowercase hex digits.
    public var value: String
    /// The diagnosis category that went into it.
    public var category: CrashCategory
    /// The normalized function names (or other components) that went into it, top first.
    public var components: [String]
    /// What it was computed from.
    public var basis: Basis

    /// Frames taken from the stack.
    public static let defaultDepth = 3

    /// The fingerprint of `report` under `diagnosis`, from its top `depth` in-app functions.
    public static func compute(for report: CrashReport, diagnosis: Diagnosis, depth: Int = defaultDepth) -> CrashFingerprint {
        let frames = stack(of: report, category: diagnosis.category)
        var components: [String] = []
        var basis = Basis.appFrames
        let cut = borderCut(frames)
        let candidates = frames[cut...].filter { !$0.isInlined || $0.symbol != nil }
        // Consecutive repeats (recursion) count once, so recursion depth does not change the key.
        func add(_ component: String) {
            if components.last != component { components.append(component) }
        }
        for frame in candidates where components.count < depth {
            // A frame without an image (`???`) is no anchor: its address means nothing elsewhere.
            guard hasImage(frame, in: report), !isSystem(frame, in: report), !isReporter(frame, in: report) else { continue }
            if let symbol = frame.symbol {
                add(FunctionName.normalized(symbol))
            } else {
                add("\(report.image(of: frame)?.name ?? frame.imageName ?? "???")+0x\(String(frame.imageOffset, radix: 16))")
                basis = .unsymbolicated
            }
        }
        if components.isEmpty {
            basis = .systemFrames
            for frame in candidates where components.count < depth && !isReporter(frame, in: report) {
                guard let symbol = frame.symbol else { continue }
                add(FunctionName.normalized(symbol))
            }
        }
        if components.isEmpty {
            basis = .reason
            components = reasonComponents(report)
        }
        var hash = StableHash()
        hash.add(diagnosis.category.rawValue)
        for component in components { hash.add(component) }
        return CrashFingerprint(value: hash.hex, category: diagnosis.category, components: components, basis: basis)
    }

    /// The stack that identifies the problem: where an exception was thrown, the main thread
    /// for hangs and watchdogs, the heaviest stack for resource diagnostics, else the crashed
    /// thread.
    static func stack(of report: CrashReport, category: CrashCategory) -> [StackFrame] {
        switch category {
        case .uncaughtException:
            if let backtrace = report.lastExceptionBacktrace, !backtrace.isEmpty { return backtrace }
        case .watchdog, .hang, .deadlock, .slowLaunch:
            if let main = report.mainThread ?? report.triggeredThread { return main.frames }
        case .cpuUsage, .diskWrites:
            let heaviest = report.threads.flatMap { $0.samples ?? [StackSample(frames: $0.frames, count: 1)] }
                .max(by: { $0.count < $1.count })
            if let heaviest { return heaviest.frames }
        default:
            break
        }
        return (report.triggeredThread ?? report.mainThread ?? report.threads.first)?.frames ?? []
    }

    /// Functions that throw, abort or report on behalf of their caller; frames down to the
    /// last of them (within the top of the stack) are not the app's code path.
    static let borders: Set<String> = [
        "__cxa_throw", "__cxa_rethrow", "objc_exception_throw", "objc_exception_rethrow", "__exceptionPreprocess",
        "+[NSException raise:format:]", "-[NSException raise]", "_CFThrowFormattedException", "abort", "__abort_with_payload",
        "abort_with_payload", "__pthread_kill", "pthread_kill", "raise", "__assert_rtn", "_assertionFailure",
        "_assertionFailure(_:_:file:line:flags:)", "_fatalErrorMessage(_:_:file:line:flags:)", "fatalError(_:file:line:)",
        "swift_runtime_on_report", "_swift_runtime_on_report", "swift::fatalError(unsigned int, char const*, ...)",
        "swift_dynamicCastFailure", "std::terminate()", "std::__terminate(void (*)())", "_objc_terminate()",
        "demangling_terminate_handler()", "abort_message", "__abort_message", "_os_crash", "_os_crash_fmt",
        "__stack_chk_fail", "malloc_error_break", "malloc_zone_error", "free_list_checksum_botch", "_dispatch_abort",
        "szone_error", "malloc_report", "malloc_vreport", "__malloc_report", "nanov2_guard_corruption_detected",
        "___BUG_IN_CLIENT_OF_LIBMALLOC_POINTER_BEING_FREED_WAS_NOT_ALLOCATED",
        "__BUG_IN_CLIENT_OF_LIBMALLOC_POINTER_BEING_FREED_WAS_NOT_ALLOCATED",
        "os_unfair_lock_corruption_abort", "_os_unfair_lock_corruption_abort",
    ]

    static func borderCut(_ frames: [StackFrame]) -> Int {
        var cut = 0
        for (index, frame) in frames.prefix(48).enumerated() {
            guard let symbol = frame.symbol else { continue }
            let name = FunctionName.base(symbol)
            if borders.contains(name) || name.hasPrefix("Swift runtime failure") || name.hasPrefix("Swift._assertionFailure")
                || name.hasPrefix("Swift._fatalErrorMessage") {
                cut = index + 1
            }
        }
        return min(cut, frames.count)
    }

    static func isSystem(_ frame: StackFrame, in report: CrashReport) -> Bool {
        if let image = report.image(of: frame) { return !report.isAppImage(image) }
        if let name = frame.imageName { return SystemLibraryNames.isSystem(name) }
        return false
    }

    /// Whether the frame names a real image (not `???`, not an image-less address).
    static func hasImage(_ frame: StackFrame, in report: CrashReport) -> Bool {
        if let image = report.image(of: frame) { return image.name != "???" && !image.name.isEmpty }
        if let name = frame.imageName { return name != "???" && !name.isEmpty }
        return false
    }

    static let reporterSymbolPrefixes = ["vigil_", "Vigil.", "VigilRuntime.", "VigilCore.", "CVigilRuntime", "$s5Vigil", "$s12VigilRuntime",
                                         "kscrash", "KSCrash", "ksmach", "sentrycrash", "SentryCrash", "-[SentryCrash",
                                         "FIRCLS", "-[FIRCLS", "plcrash", "PLCrashReporter", "-[PLCrashReporter", "bsg_kscrash",
                                         "BSG_KSCrash"]
    static let reporterImages: Set<String> = ["Vigil", "VigilRuntime", "VigilCore", "KSCrash", "Sentry", "SentryCrash",
                                              "FirebaseCrashlytics", "CrashReporter", "Bugsnag"]

    static func isReporter(_ frame: StackFrame, in report: CrashReport) -> Bool {
        if let name = report.image(of: frame)?.name ?? frame.imageName, reporterImages.contains(name) { return true }
        guard let symbol = frame.symbol else { return false }
        return reporterSymbolPrefixes.contains(where: { symbol.hasPrefix($0) })
    }

    static func reasonComponents(_ report: CrashReport) -> [String] {
        if let killed = report.jetsam?.killed.first {
            return ["jetsam", killed.reason ?? "", killed.name ?? ""]
        }
        var parts: [String] = []
        if let language = report.languageException?.name { parts.append(language) }
        if let type = report.exception?.type ?? report.exception?.signal { parts.append(type) }
        if let code = report.termination?.codeHex { parts.append(code) }
        return parts.isEmpty ? [report.kind.rawValue] : parts
    }
}
