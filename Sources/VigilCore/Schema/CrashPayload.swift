/// Payload of a `crash` event: how the process died and what its threads were doing.
public struct CrashPayload: Codable, Sendable, Hashable {
    /// Signal name, e.g. `SIGSEGV`.
    public var signal: String?
    /// Signal code, e.g. `SEGV_MAPERR`, or the Mach exception code.
    public var code: String?
    /// The faulting address for memory errors.
    public var faultAddress: Address?
    /// The language-level exception or runtime message, when there was one.
    public var exception: CrashException?
    /// The process's threads; exactly one has `crashed == true` when the crashing thread is known.
    public var threads: [CrashThread]
    /// The crashed thread's registers by name (`pc`, `lr`, `sp`, `rip`, …).
    public var registers: [String: Address]?
    /// Whether this crash record stands for a process that died during a hang (watchdog or a
    /// hang the SDK saw but never saw end).
    public var fatalHang: Bool
    /// OS termination reason, e.g. a watchdog code such as `0x8badf00d`.
    public var terminationReason: String?

    public init(signal: String? = nil, code: String? = nil, faultAddress: Address? = nil,
                exception: CrashException? = nil, threads: [CrashThread], registers: [String: Address]? = nil,
                fatalHang: Bool = false, terminationReason: String? = nil) {
        self.signal = signal
        self.code = code
        self.faultAddress = faultAddress
        self.exception = exception
        self.threads = threads
        self.registers = registers
        self.fatalHang = fatalHang
        self.terminationReason = terminationReason
    }
}

/// A language-level exception or runtime failure message attached to a crash.
public struct CrashException: Codable, Sendable, Hashable {
    /// Exception class or kind, e.g. `NSInvalidArgumentException` or `Swift runtime failure`.
    public var type: String
    /// The message, e.g. `Fatal error: Index out of range`.
    public var reason: String?
    /// Where the exception was thrown, innermost first (absolute addresses; Apple's "Last
    /// Exception Backtrace"), when the runtime recorded it: an uncaught NSException's
    /// `callStackReturnAddresses`. The crashed thread's own stack then shows only the runtime
    /// aborting.
    public var frames: [Address]?

    public init(type: String, reason: String? = nil, frames: [Address]? = nil) {
        self.type = type
        self.reason = reason
        self.frames = frames
    }
}

/// One thread of a crashed process.
public struct CrashThread: Codable, Sendable, Hashable {
    /// Whether this thread raised the crash.
    public var crashed: Bool
    /// Thread or dispatch queue name, when it had one.
    public var name: String?
    /// Absolute addresses, innermost first: the PC, then return addresses.
    public var frames: [Address]

    public init(crashed: Bool, name: String? = nil, frames: [Address]) {
        self.crashed = crashed
        self.name = name
        self.frames = frames
    }
}
