import VigilRuntime

extension Vigil {
    /// Crash capture's state: what the recovery of earlier runs' reports came to at the last
    /// start, and whether this run's handler is armed. Available whether or not Vigil runs.
    public static func crashDiagnostics() -> CrashDiagnostics {
        CrashCapture.shared.diagnostics
    }

    /// Re-reads the loaded images for the crash handler now, e.g. right after `dlopen`, rather
    /// than at the next periodic check. Not for signal handlers; cheap when nothing changed.
    public static func imagesDidChange() {
        CrashHandler.refreshImages()
    }

    /// Gives the calling thread its own alternate signal stack, so that a stack overflow on it
    /// is reported (the main thread gets one at start; signal stacks are per thread). Costs
    /// 64 KiB of address space, never freed.
    @discardableResult
    public static func prepareThreadForCrashCapture() -> Bool {
        CrashHandler.prepareCurrentThread()
    }
}
