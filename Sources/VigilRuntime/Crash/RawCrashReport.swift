import Foundation

/// A raw crash report as the crash handler wrote it (docs/crash.md, "Raw format"), parsed and
/// verified by ``RawCrashReportParser``: how the process died, its threads' stacks, its images,
/// and the metadata the SDK gave the handler at install.
public struct RawCrashReport: Sendable, Hashable {
    /// The format version of the first line.
    public var formatVersion: Int
    /// The system that wrote the report: `linux` or `darwin`.
    public var operatingSystem: String
    /// The architecture the handler was built for (`x86_64`, `arm64`) and its word size in bytes.
    public var architecture: String
    public var wordSize: Int
    /// The crashed process and thread.
    public var processID: Int32
    public var crashedThreadID: Int32
    /// When the handler started, wall clock and CLOCK_MONOTONIC (nanoseconds).
    public var time: Date
    public var monotonicNanoseconds: UInt64
    /// The signal, its `si_code`, `si_addr`, and the sender's pid for signals sent by a process.
    public var signal: Int32
    public var code: Int32
    public var faultAddress: UInt64
    public var senderProcessID: Int32
    /// The crashed thread's registers in the order they were written.
    public var registers: [Register]
    /// What the memory-map read at crash time came to.
    public var memoryMap: MemoryMapSummary?
    /// Every thread captured; exactly one has `crashed` set.
    public var threads: [Thread]
    /// The Swift runtime's fatal error message, when there was one.
    public var message: Message?
    /// A language-level exception recorded before the crash (an uncaught NSException, a C++
    /// exception), when there was one.
    public var exception: LanguageException?
    /// The Mach exception (Apple platforms): type and codes.
    public var machException: MachException?
    /// The SDK's metadata blob (JSON), verbatim.
    public var metadata: Data
    /// The image snapshot's totals, its images, and images loaded after it.
    public var imageSummary: ImageSummary?
    public var images: [Image]
    public var lateImages: [LateImage]
    /// How the other threads were captured.
    public var threadSummary: ThreadSummary?
    /// Crashes on other threads while this one was being written.
    public var secondaryCrashes: [SecondaryCrash]
    /// A fault inside the handler that cut the report short (it stays valid).
    public var handlerFault: HandlerFault?
    /// Monotonic timestamps of the handler's progress.
    public var timing: Timing?
    /// The CRC-32 and length the end marker carries.
    public var checksum: UInt32
    public var length: Int

    /// The crashed thread.
    public var crashedThread: Thread? { threads.first { $0.crashed } }

    /// One register.
    public struct Register: Sendable, Hashable {
        public var name: String
        public var value: UInt64
    }

    /// The `map` record.
    public struct MemoryMapSummary: Sendable, Hashable {
        public var mappings: Int
        public var dropped: Int
        public var malformed: Int
        /// errno of the read, 0 when it worked.
        public var error: Int32
    }

    /// Where a thread's registers came from.
    public enum RegisterSource: Int, Sendable, Hashable {
        /// The crash signal's context (the crashed thread).
        case signal = 0
        /// The thread was parked by the handler's signal (accurate).
        case parked = 1
        /// /proc/self/task/<tid>/syscall: stack and instruction pointer of a thread blocked in
        /// the kernel that could not be parked (it blocks the park signal).
        case proc = 2
        /// None: the thread could not be captured.
        case none = 3
        /// The thread crashed too, while the first crash was being written.
        case secondaryCrash = 4
    }

    /// One thread.
    public struct Thread: Sendable, Hashable {
        public var id: Int32
        public var crashed: Bool
        /// `VIGIL_WALK_*` and `VIGIL_UNWIND_*` flags of the walk.
        public var walkFlags: UInt32
        public var source: RegisterSource
        /// Innermost first: the PC, then return addresses.
        public var frames: [UInt64]
        /// The kernel's thread name (`comm`), empty when unknown.
        public var name: String
    }

    /// The runtime message (`kind` is `swift`).
    public struct Message: Sendable, Hashable {
        public var kind: String
        public var text: String
    }

    /// The `exception` record.
    public struct LanguageException: Sendable, Hashable {
        public var type: String
        public var reason: String
    }

    /// The `mach` record.
    public struct MachException: Sendable, Hashable {
        public var type: Int32
        public var code: UInt64
        public var subcode: UInt64
    }

    /// The `images` record.
    public struct ImageSummary: Sendable, Hashable {
        public var count: Int
        public var dropped: Int
        public var skipped: Int
    }

    /// One image of the snapshot.
    public struct Image: Sendable, Hashable {
        public var loadAddress: UInt64
        public var size: UInt64
        public var bias: UInt64
        public var lowestVirtualAddress: UInt64
        /// GNU build id in lowercase hex, empty when the image has none.
        public var buildID: String
        public var path: String
    }

    /// An image the loader listed at crash time that the snapshot did not have.
    public struct LateImage: Sendable, Hashable {
        public var loadAddress: UInt64
        public var size: UInt64
        public var bias: UInt64
        public var path: String
    }

    /// The `threads` record.
    public struct ThreadSummary: Sendable, Hashable {
        public var listed: Int
        public var parked: Int
        public var fromProc: Int
        public var withoutRegisters: Int
        public var timedOut: Int
        public var sendFailed: Int
        public var skipped: Int
    }

    /// A `secondary` record.
    public struct SecondaryCrash: Sendable, Hashable {
        public var threadID: Int32
        public var signal: Int32
        public var code: Int32
        public var faultAddress: UInt64
        public var pc: UInt64
    }

    /// A `fault` record.
    public struct HandlerFault: Sendable, Hashable {
        /// The section (`CrashHandler.Section` raw value) the handler was in.
        public var section: UInt32
        public var signal: Int32
        public var code: Int32
        public var faultAddress: UInt64
        public var pc: UInt64
    }

    /// The `timing` record: monotonic nanoseconds.
    public struct Timing: Sendable, Hashable {
        public var entry: UInt64
        public var crashedThreadWritten: UInt64
        public var imagesWritten: UInt64
        public var threadsWritten: UInt64
        public var end: UInt64
    }
}
