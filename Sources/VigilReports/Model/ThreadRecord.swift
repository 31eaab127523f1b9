/// One thread of a report: its identity, registers and backtrace.
public struct ThreadRecord: Sendable, Hashable, Codable {
    /// The thread's number in the report (`Thread 3`), or its position for formats without one.
    public var number: Int
    /// The kernel thread id, when the report gives it.
    public var id: UInt64?
    /// Thread name, e.g. `com.apple.uikit.eventfetch-thread`.
    public var name: String?
    /// Dispatch queue label, e.g. `com.apple.main-thread`.
    public var queue: String?
    /// Whether this thread triggered the crash (or, for MetricKit, the stack is attributed to it).
    public var crashed: Bool
    /// Backtrace, innermost frame first. Inlined frames (when symbolicated) precede the frame
    /// they were inlined into and share its offset.
    public var frames: [StackFrame]
    /// Registers of the thread, in report order (usually only for the crashed thread).
    public var registers: [Register]
    /// Register set flavor, e.g. `ARM_THREAD_STATE64`, `x86_THREAD_STATE`.
    public var registerFlavor: String?
    /// Sampled stacks and their counts, for sampled reports (MetricKit call-stack trees,
    /// Vigil hang events); ``frames`` then holds the most frequent one.
    public var samples: [StackSample]?

    public init(number: Int, id: UInt64? = nil, name: String? = nil, queue: String? = nil, crashed: Bool = false,
                frames: [StackFrame] = [], registers: [Register] = [], registerFlavor: String? = nil,
                samples: [StackSample]? = nil) {
        self.number = number
        self.id = id
        self.name = name
        self.queue = queue
        self.crashed = crashed
        self.frames = frames
        self.registers = registers
        self.registerFlavor = registerFlavor
        self.samples = samples
    }

    /// Whether the thread is the main thread by its queue or name.
    public var isMainThread: Bool {
        queue == "com.apple.main-thread" || name == "com.apple.main-thread" || name == "main"
    }

    /// The value of register `name` (`pc`, `sp`, `lr`, `rip`, `far`…), when recorded.
    public func register(_ name: String) -> UInt64? {
        registers.first(where: { $0.name == name })?.value
    }
}

/// One stack frame: a place in a binary image, and what symbolication found there.
public struct StackFrame: Sendable, Hashable, Codable {
    /// Index into ``CrashReport/images``; nil when the frame's image is unknown.
    public var imageIndex: Int?
    /// Bytes from the image's load address to the instruction (the return address for
    /// callers). When ``imageIndex`` is nil, the absolute address.
    public var imageOffset: UInt64
    /// The image name as the report wrote it on the frame, kept for frames whose image could
    /// not be resolved.
    public var imageName: String?
    /// Function name, when symbolicated.
    public var symbol: String?
    /// Bytes from the start of ``symbol`` to the instruction (`symbolLocation`).
    public var symbolOffset: UInt64?
    /// Source file name, when symbolicated with debug information.
    public var sourceFile: String?
    /// Source line (0 means the compiler gave no line).
    public var sourceLine: Int?
    /// Whether this frame is a function inlined into the next frame.
    public var isInlined: Bool
    /// 1-based line of this frame in the Apple text report it was read from, used to rewrite
    /// that line when symbolicating. Nil for other formats.
    public var textLine: Int?

    public init(imageIndex: Int?, imageOffset: UInt64, imageName: String? = nil, symbol: String? = nil,
                symbolOffset: UInt64? = nil, sourceFile: String? = nil, sourceLine: Int? = nil,
                isInlined: Bool = false, textLine: Int? = nil) {
        self.imageIndex = imageIndex
        self.imageOffset = imageOffset
        self.imageName = imageName
        self.symbol = symbol
        self.symbolOffset = symbolOffset
        self.sourceFile = sourceFile
        self.sourceLine = sourceLine
        self.isInlined = isInlined
        self.textLine = textLine
    }
}

/// One distinct sampled stack and how many samples hit it.
public struct StackSample: Sendable, Hashable, Codable {
    /// Innermost frame first.
    public var frames: [StackFrame]
    /// Number of samples.
    public var count: Int

    public init(frames: [StackFrame], count: Int) {
        self.frames = frames
        self.count = count
    }
}

/// One register of a thread state.
public struct Register: Sendable, Hashable, Codable {
    /// Register name as the report writes it: `x0`…`x28`, `fp`, `lr`, `sp`, `pc`, `cpsr`, `far`,
    /// `esr`, or `rax`, `rip`, `rflags`…
    public var name: String
    /// Its value.
    public var value: UInt64
    /// Apple's note on the value, e.g. `(Data Abort) byte read Translation fault` for `esr`.
    public var note: String?

    public init(name: String, value: UInt64, note: String? = nil) {
        self.name = name
        self.value = value
        self.note = note
    }
}
