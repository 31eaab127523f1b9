#if canImport(Darwin) && canImport(ObjectiveC)
import CVigilRuntime
import Foundation

/// Records an uncaught NSException's name and reason for the crash report that follows it
/// (`NSSetUncaughtExceptionHandler`), then hands the exception to the handler that was installed
/// before (which normally ends in abort, and so in the SIGABRT the Mach sibling reports).
///
/// Apple platforms only (type-checked against their SDKs, not run). The hook runs on the throwing thread, before the
/// process aborts, so it may use Foundation; it only copies two strings into storage allocated
/// at install.
public enum UncaughtExceptionRecorder {
    nonisolated(unsafe) private static var previous: (@convention(c) (NSException) -> Void)?
    nonisolated(unsafe) private static var installed = false

    /// Installs the hook once; later calls do nothing.
    public static func install() {
        guard !installed else { return }
        installed = true
        previous = NSGetUncaughtExceptionHandler()
        NSSetUncaughtExceptionHandler { exception in
            vigil_crash_set_exception(exception.name.rawValue, exception.reason ?? "")
            UncaughtExceptionRecorder.previous?(exception)
        }
    }
}
#endif
