import VigilRuntime

/// What crash capture saw and did in this process: the recovery of earlier runs' reports at
/// start, and the handler's state and totals.
public struct CrashDiagnostics: Sendable, Hashable {
    /// The recovery at the last `Vigil.start(_:)`.
    public var recovery: CrashRecoveryCounters
    /// Whether that recovery is still running (it runs on the SDK's queue after start).
    public var recoveryPending: Bool
    /// The handler's stage (armed, disarmed, not installed…): the signal handler's on Linux, the
    /// Mach handler's on Apple platforms.
    public var stage: CrashHandler.Stage
    /// Apple platforms: whether the Mach exception port is Vigil's (off under a debugger);
    /// `nil` on Linux.
    public var machExceptionPort: MachExceptionPortState? = nil
    /// The handler's totals (installs, image refreshes, disk reservation).
    public var handler: CrashHandler.Counters
    /// Why the handler is not armed, when the install failed.
    public var installProblem: String?
    /// The raw report file this run's handler writes, when armed.
    public var reportPath: String?
}
