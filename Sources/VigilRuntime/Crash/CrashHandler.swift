import CVigilRuntime
import Foundation

/// The process's crash handler (`vigil_crash.h`): installs the signal handlers that write a raw
/// crash report at crash time, and keeps what they need current.
///
/// One per process: the C state it drives is allocated at the first install and lives until
/// the process ends. Every call here is made at normal times (never from a signal handler) and
/// is thread-safe (the C side serialises install, disarm and image refreshes).
public enum CrashHandler {
    /// How the handler is set up. Zero means the C default for every number.
    public struct Configuration: Sendable, Hashable {
        /// The raw report file: created (or emptied) and opened at install.
        public var reportPath: String
        /// Opaque bytes copied into every report (the SDK's session metadata), at most 32 KiB.
        public var metadata: Data
        /// Frames kept for the crashed thread (default 512, at most 4096).
        public var maxFrames: Int = 0
        /// Frames kept per other thread (default 128, at most ``maxFrames``).
        public var maxFramesOtherThreads: Int = 0
        /// Other threads captured at most (default 64).
        public var maxThreads: Int = 0
        /// Total time the handler waits for other threads to park, in ms (default 20).
        public var threadTimeoutMs: Int = 0
        /// Disk space reserved for the report at install, in bytes (default 512 KiB).
        public var reserveBytes: Int = 0
        /// Tests only: a deliberate fault (a read of address 8) when the handler reaches this
        /// section.
        public var testFaultSection: Section?
        /// Tests only: a flush and a stall of ``testStallMs`` when the handler reaches this
        /// section.
        public var testStallSection: Section?
        /// Tests only: how long the stall of ``testStallSection`` lasts, in milliseconds.
        public var testStallMs: Int = 0

        /// A configuration writing to `reportPath` with the SDK's `metadata`; every number at
        /// its C default.
        public init(reportPath: String, metadata: Data) {
            self.reportPath = reportPath
            self.metadata = metadata
        }
    }

    /// The sections of a raw report, in writing order (`vigil_crash_section`).
    public enum Section: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The header, process, time and signal records.
        case signal = 1
        /// The SDK's metadata blob.
        case metadata
        /// The crashed thread's registers.
        case registers
        /// The memory map and the crashed thread's stack.
        case crashedThread
        /// The image snapshot and the images loaded after it.
        case images
        /// The Swift runtime's message and a recorded language exception.
        case message
        /// The other threads (parked or read from /proc).
        case threads
        /// The timing record and the end marker.
        case finish

        public var description: String {
            switch self {
            case .signal: return "signal"
            case .registers: return "registers"
            case .crashedThread: return "crashedThread"
            case .message: return "message"
            case .metadata: return "metadata"
            case .images: return "images"
            case .threads: return "threads"
            case .finish: return "finish"
            }
        }
    }

    /// Where the handler is (`vigil_crash_stage_value`).
    public enum Stage: UInt32, Sendable, Hashable {
        /// ``install(_:)`` never succeeded.
        case notInstalled = 0
        /// A crash will be written.
        case armed
        /// Installed, but only passes signals on (``disarm(removeFile:)``).
        case disarmed
        /// A crash is being written.
        case writing
        /// The report is complete; the signal is being passed on.
        case written
        /// Writing failed (disk full, I/O error): no valid report.
        case failed
    }

    /// Why the handler could not be installed.
    public struct InstallError: Error, CustomStringConvertible, Sendable, Hashable {
        /// The report file the install was for.
        public var path: String
        /// The errno value `vigil_crash_install` returned.
        public var code: Int32
        public var description: String {
            "cannot install the crash handler for \(path): \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    /// The handler's running totals.
    public struct Counters: Sendable, Hashable {
        /// Successful installs (the first installs the handlers, later ones re-arm).
        public var installs: UInt64
        /// Image snapshots taken after install because the loader reported a change.
        public var imageRefreshes: UInt64
        /// Snapshots skipped because a crash was in progress.
        public var imageRefreshesSkipped: UInt64
        /// Images that did not fit into the snapshot.
        public var imagesDropped: Int
        /// Whether the report file got its disk reservation.
        public var reserved: Bool
        /// Faults handed to a handler installed before Vigil's that it recovered from (their
        /// reports were retracted; docs/crash.md, "Chaining").
        public var recoveredFaults: UInt64 = 0
    }

    /// Installs the handlers (first call) or re-arms them with a new report file and metadata,
    /// snapshots the loaded images, and gives the calling thread an alternate signal stack (call
    /// on the main thread, so that a main-thread stack overflow is caught).
    ///
    /// Cost: one file open and `fallocate`, one `dl_iterate_phdr`, eight `sigaction`s; the
    /// first call also maps about 1.5 MB of buffers (touched lazily).
    public static func install(_ configuration: Configuration) throws(InstallError) {
        let status = configuration.withCConfiguration { vigil_crash_install(&$0) }
        guard status == 0 else { throw InstallError(path: configuration.reportPath, code: status) }
    }

    /// Stops writing reports (the handlers stay, passing signals on); with `removeFile` the
    /// report file is deleted.
    public static func disarm(removeFile: Bool) {
        vigil_crash_disarm(removeFile ? 1 : 0)
    }

    /// Re-snapshots the loaded images when the loader reports a change (or always, with
    /// `force`). Returns true when a new snapshot was published. One `dl_iterate_phdr` step
    /// when nothing changed; call it from a background queue, periodically and after `dlopen`.
    @discardableResult
    public static func refreshImages(force: Bool = false) -> Bool {
        vigil_crash_refresh_images(force ? 1 : 0) == 1
    }

    /// Gives the calling thread its own alternate signal stack (signal stacks are per thread),
    /// so that a stack overflow on it is reported. Returns false when that failed.
    @discardableResult
    public static func prepareCurrentThread() -> Bool {
        vigil_crash_prepare_current_thread() == 0
    }

    /// The handler's stage.
    public static var stage: Stage { Stage(rawValue: vigil_crash_stage()) ?? .notInstalled }

    /// The real-time signal that parks other threads at crash time, or 0 before install.
    public static var parkSignal: Int32 { vigil_crash_park_signal() }

    /// The handler's running totals.
    public static var counters: Counters {
        var raw = vigil_crash_counters()
        vigil_crash_get_counters(&raw)
        return Counters(installs: raw.installs, imageRefreshes: raw.image_refreshes,
                        imageRefreshesSkipped: raw.image_refreshes_skipped, imagesDropped: Int(raw.images_dropped),
                        reserved: raw.reserved != 0, recoveredFaults: raw.faults_recovered)
    }

    /// CRC-32 (zlib's polynomial) of `bytes`, as the raw report's end marker carries it.
    public static func crc32(_ bytes: some ContiguousBytes, continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { raw in vigil_crash_crc32(crc, raw.baseAddress, raw.count) }
    }
}

extension CrashHandler.Configuration {
    /// Calls `body` with these settings as the C handler's `vigil_crash_config` (negative
    /// numbers become 0, the C default); the path and metadata pointers in it live only
    /// during the call. The Linux and the Darwin installs both start here.
    func withCConfiguration<Result>(_ body: (inout vigil_crash_config) -> Result) -> Result {
        metadata.withUnsafeBytes { metadata -> Result in
            reportPath.withCString { path -> Result in
                var config = vigil_crash_config()
                config.report_path = path
                config.metadata = metadata.bindMemory(to: UInt8.self).baseAddress
                config.metadata_length = UInt32(clamping: metadata.count)
                config.max_frames = UInt32(clamping: max(0, maxFrames))
                config.max_frames_other_threads = UInt32(clamping: max(0, maxFramesOtherThreads))
                config.max_threads = UInt32(clamping: max(0, maxThreads))
                config.thread_timeout_ms = UInt32(clamping: max(0, threadTimeoutMs))
                config.reserve_bytes = UInt32(clamping: max(0, reserveBytes))
                config.test_fault_section = testFaultSection?.rawValue ?? 0
                config.test_stall_section = testStallSection?.rawValue ?? 0
                config.test_stall_ms = UInt32(clamping: max(0, testStallMs))
                return body(&config)
            }
        }
    }
}
