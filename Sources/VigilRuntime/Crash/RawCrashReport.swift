import Foundation

/// A raw crash report as the crash handler wrote it (docs/crash.md, "Raw format"), parsed and
/// verified by ``RawCrashReportParser``: how the process died, its threads' stacks, its images,
/// and the metadata the SDK gave the handler at install.
public struct RawCrashReport: Sendable, Hashable {
    /// The format version of the first line.
    public var formatVersion: Int
    /// The system that wrote the report: `linux` or `darwin`.
    public var operatingSystem: String
    /// The architecture the handler was built for (`x86_64`, `arm64`).
    public var architecture: String
    /// The word size of that architecture, in bytes.
    public var wordSize: Int
    /// The crashed process.
    public var processID: Int32
    /// The kernel's id of the crashed thread.
    public var crashedThreadID: Int32
    /// When the handler started, on the wall clock.
    public var time: Date
    /// When the handler started, on CLOCK_MONOTONIC, in nanoseconds.
    public var monotonicNanoseconds: UInt64
    /// The signal number.
    public var signal: Int32
    /// The signal's `si_code` (see ``SignalDescription``).
    public var code: Int32
    /// `si_addr`: the faulting address for a fault, else whatever the kernel put there.
    public var faultAddress: UInt64
    /// The sender's pid for a signal sent by a process (`si_code` ≤ 0), else 0.
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
    /// The `exception-stack` record: where the language-level exception was thrown, innermost
    /// first (an uncaught NSException's `callStackReturnAddresses`); empty when not recorded.
    public var exceptionStack: [UInt64] = []
    /// The SDK's metadata blob (JSON), verbatim.
    public var metadata: Data
    /// The image snapshot's totals.
    public var imageSummary: ImageSummary?
    /// The images of the snapshot taken at install or at the last refresh.
    public var images: [Image]
    /// Images the loader listed at crash time that the snapshot did not have.
    public var lateImages: [LateImage]
    /// How the other threads were captured.
    public var threadSummary: ThreadSummary?
    /// Crashes on other threads while this one was being written.
    public var secondaryCrashes: [SecondaryCrash]
    /// A fault inside the handler that cut the report short (it stays valid).
    public var handlerFault: HandlerFault?
    /// Monotonic timestamps of the handler's progress.
    public var timing: Timing?
    /// The CRC-32 the end marker carries.
    public var checksum: UInt32
    /// The length the end marker carries: the bytes before it.
    public var length: Int

    /// The crashed thread.
    public var crashedThread: Thread? { threads.first { $0.crashed } }

    /// One register.
    public struct Register: Sendable, Hashable {
        /// The register's name in the platform's convention (`rip`, `x29`, `pc`…).
        public var name: String
        /// Its value at the crash.
        public var value: UInt64
    }

    /// The `map` record.
    public struct MemoryMapSummary: Sendable, Hashable {
        /// Mappings read from /proc/self/maps.
        public var mappings: Int
        /// Mappings beyond the table's capacity.
        public var dropped: Int
        /// Lines that did not parse.
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
        /// The kernel's thread id.
        public var id: Int32
        /// Whether this is the thread that crashed.
        public var crashed: Bool
        /// `VIGIL_WALK_*` and `VIGIL_UNWIND_*` flags of the walk.
        public var walkFlags: UInt32
        /// Where the registers the walk started from came from.
        public var source: RegisterSource
        /// Innermost first: the PC, then return addresses.
        public var frames: [UInt64]
        /// The kernel's thread name (`comm`), empty when unknown.
        public var name: String
    }

    /// The runtime message (`kind` is `swift`).
    public struct Message: Sendable, Hashable {
        /// Whose message it is (`swift`).
        public var kind: String
        /// The message, at most 4 KiB.
        public var text: String
    }

    /// The `exception` record.
    public struct LanguageException: Sendable, Hashable {
        /// The exception's class or type name.
        public var type: String
        /// Its reason or message.
        public var reason: String
    }

    /// The `mach` record.
    public struct MachException: Sendable, Hashable {
        /// The exception type (`EXC_BAD_ACCESS`…).
        public var type: Int32
        /// The first exception code (the kernel's reason).
        public var code: UInt64
        /// The second exception code (the faulting address for a bad access).
        public var subcode: UInt64
    }

    /// The `images` record.
    public struct ImageSummary: Sendable, Hashable {
        /// Images in the snapshot.
        public var count: Int
        /// Images beyond the snapshot's capacity.
        public var dropped: Int
        /// Loader entries without a loadable segment.
        public var skipped: Int
    }

    /// One image of the snapshot.
    public struct Image: Sendable, Hashable {
        /// Where the image's lowest segment starts in memory.
        public var loadAddress: UInt64
        /// From its lowest segment's start to its highest segment's end, in bytes.
        public var size: UInt64
        /// What the loader added to the image's virtual addresses.
        public var bias: UInt64
        /// The lowest segment's virtual address in the file.
        public var lowestVirtualAddress: UInt64
        /// GNU build id in lowercase hex, empty when the image has none.
        public var buildID: String
        /// The file the image was loaded from.
        public var path: String
    }

    /// An image the loader listed at crash time that the snapshot did not have.
    public struct LateImage: Sendable, Hashable {
        /// Where its first file mapping starts.
        public var loadAddress: UInt64
        /// The extent of its consecutive file mappings, in bytes.
        public var size: UInt64
        /// What the loader added to its virtual addresses.
        public var bias: UInt64
        /// The file it was loaded from.
        public var path: String
    }

    /// The `threads` record.
    public struct ThreadSummary: Sendable, Hashable {
        /// Other threads listed in /proc/self/task (up to the handler's limit).
        public var listed: Int
        /// Threads that answered the park signal.
        public var parked: Int
        /// Threads whose registers came from /proc/self/task/<tid>/syscall.
        public var fromProc: Int
        /// Threads written without a stack.
        public var withoutRegisters: Int
        /// Threads sent the park signal that did not answer in time.
        public var timedOut: Int
        /// Threads the park signal could not be sent to.
        public var sendFailed: Int
        /// Threads beyond the handler's limit.
        public var skipped: Int
    }

    /// A `secondary` record.
    public struct SecondaryCrash: Sendable, Hashable {
        /// The thread that crashed too.
        public var threadID: Int32
        /// Its signal.
        public var signal: Int32
        /// The signal's `si_code`.
        public var code: Int32
        /// The signal's `si_addr`.
        public var faultAddress: UInt64
        /// Its program counter.
        public var pc: UInt64
    }

    /// A `fault` record.
    public struct HandlerFault: Sendable, Hashable {
        /// The section (`CrashHandler.Section` raw value) the handler was in.
        public var section: UInt32
        /// The signal of the fault.
        public var signal: Int32
        /// Its `si_code`.
        public var code: Int32
        /// Its `si_addr`.
        public var faultAddress: UInt64
        /// The program counter inside the handler.
        public var pc: UInt64
    }

    /// The `timing` record: monotonic nanoseconds.
    public struct Timing: Sendable, Hashable {
        /// The handler was entered.
        public var entry: UInt64
        /// The crashed thread's record was written.
        public var crashedThreadWritten: UInt64
        /// The image records were written.
        public var imagesWritten: UInt64
        /// The other threads' records were written.
        public var threadsWritten: UInt64
        /// Just before the end marker.
        public var end: UInt64
    }
}
