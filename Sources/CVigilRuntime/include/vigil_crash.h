// vigil_crash.h: the crash handler. Catches SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP
// on an alternate signal stack, writes a raw crash report into a file opened at install, then
// hands the signal to whatever handler was installed before (or the default action), so the
// process dies with the same signal it would have died with without Vigil. A fault that handler
// recovers from (runtimes and garbage collectors probe memory that way) is not a crash: its
// report is retracted and capture stays armed (docs/crash.md, "Chaining").
//
// Crash time is C and async-signal-safe: everything the handler needs (the report file, its
// write buffer, the frame buffers, the memory-map table, the image snapshot, the metadata) is
// allocated at install; the handler takes no lock, calls no malloc and touches no Swift or
// Objective-C runtime. It uses only system calls (open, read, write, lseek, ftruncate, close,
// getdents64, rt_tgsigqueueinfo, futex, sigaction, sigprocmask, tgkill, clock_gettime) and
// memory reads that are first checked against /proc/self/maps. docs/crash.md has the safety
// argument per function and the raw format.
//
// Linux only here; on other systems `vigil_crash_install` reports ENOTSUP. The Darwin sibling
// (Mach exception port) is vigil_crash_mach.c.
#ifndef VIGIL_CRASH_H
#define VIGIL_CRASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Version of the raw report format (the first line is `VIGILCRASH <version> <arch> <word>`).
#define VIGIL_CRASH_FORMAT_VERSION 1

/// Largest metadata blob kept (bytes); longer metadata is refused at install.
#define VIGIL_CRASH_METADATA_CAPACITY (32u * 1024u)

/// Where the handler is in its life. Read with `vigil_crash_stage` (async-signal-safe), e.g. by
/// another handler that wants to know whether Vigil already wrote its report.
typedef enum vigil_crash_stage_value {
    /// `vigil_crash_install` never succeeded.
    VIGIL_CRASH_STAGE_NOT_INSTALLED = 0,
    /// Installed and armed: a crash will be written.
    VIGIL_CRASH_STAGE_ARMED = 1,
    /// Installed but disarmed (`vigil_crash_disarm`): the handler only passes signals on.
    VIGIL_CRASH_STAGE_DISARMED = 2,
    /// A crash is being written.
    VIGIL_CRASH_STAGE_WRITING = 3,
    /// The report is complete (end marker written); the signal is being passed on. For a fault
    /// handed to a handler installed before Vigil's, the stage goes back to ARMED when that
    /// handler recovers from it.
    VIGIL_CRASH_STAGE_WRITTEN = 4,
    /// Writing failed (disk full, I/O error): no valid report; the signal is being passed on.
    VIGIL_CRASH_STAGE_FAILED = 5,
} vigil_crash_stage_value;

/// Report sections, in the order they are written: what a crash event cannot do without first
/// (signal, metadata, the crashed thread, the images), the parts that read the most foreign
/// memory last. A deliberate test fault or stall names one of them; a handler fault record says
/// in which one the fault happened.
typedef enum vigil_crash_section {
    VIGIL_CRASH_SECTION_NONE = 0,
    VIGIL_CRASH_SECTION_SIGNAL = 1,
    VIGIL_CRASH_SECTION_METADATA = 2,
    VIGIL_CRASH_SECTION_REGISTERS = 3,
    VIGIL_CRASH_SECTION_CRASHED_THREAD = 4,
    VIGIL_CRASH_SECTION_IMAGES = 5,
    VIGIL_CRASH_SECTION_MESSAGE = 6,
    VIGIL_CRASH_SECTION_THREADS = 7,
    VIGIL_CRASH_SECTION_FINISH = 8,
} vigil_crash_section;

/// What `vigil_crash_install` needs. Zero means "the default" for every number.
typedef struct vigil_crash_config {
    /// The raw report file, created (or emptied) and opened now. Required.
    const char *report_path;
    /// Opaque bytes written verbatim into the report (the SDK's JSON: session, app, device).
    const uint8_t *metadata;
    uint32_t metadata_length;
    /// Frames kept for the crashed thread (default 512, at most 4096). A thread record is written
    /// whole or not at all, so a thread gets only the innermost frames that fit the write
    /// buffer's free space (never fewer than 2,000), flagged VIGIL_WALK_TRUNCATED when cut.
    uint32_t max_frames;
    /// Frames kept per other thread (default 128, at most `max_frames`).
    uint32_t max_frames_other_threads;
    /// Other threads captured at most (default 64, at most 1024); more are counted.
    uint32_t max_threads;
    /// How long the handler waits, in total, for other threads to answer the park signal
    /// (default 20 ms). Threads that block the signal are not waited for at all.
    uint32_t thread_timeout_ms;
    /// Images kept in each of the two snapshot buffers (default 1024).
    uint32_t image_capacity;
    /// Disk space reserved for the report at install with fallocate(KEEP_SIZE), so that a disk
    /// that fills up later does not lose the report (default 512 KiB; best effort).
    uint32_t reserve_bytes;
    /// Size of the alternate signal stack installed on the calling thread when it has none of
    /// at least 16 KiB (default 64 KiB).
    uint32_t alternate_stack_bytes;
    /// Tests only: the handler reads address 0x8 (a deliberate fault) when it reaches this
    /// section (`vigil_crash_section`, 0 = never).
    uint32_t test_fault_section;
    /// Tests only: the handler flushes and sleeps `test_stall_ms` when it reaches this section.
    uint32_t test_stall_section;
    uint32_t test_stall_ms;
} vigil_crash_config;

/// Running totals, for the SDK's "what was dropped" counters.
typedef struct vigil_crash_counters {
    /// Successful installs (the first installs the handlers; later ones re-arm with a new file).
    uint64_t installs;
    /// Image snapshots taken after install (the loader reported a change).
    uint64_t image_refreshes;
    /// Snapshots skipped because a crash was in progress.
    uint64_t image_refreshes_skipped;
    /// Images that did not fit into the snapshot at the last refresh.
    uint32_t images_dropped;
    /// Whether the report file got its disk reservation.
    uint32_t reserved;
    /// Faults handed to the handler installed before Vigil's that it recovered from: their
    /// reports were retracted.
    uint64_t faults_recovered;
} vigil_crash_counters;

/// Installs the handlers (first call) or re-arms them with a new report file and metadata (later
/// calls), takes the first image snapshot, installs an alternate signal stack on the calling
/// thread when it has none, and unblocks the crash signals and the park signal on the calling
/// thread (threads it creates later inherit that; a mask inherited from a parent that blocks
/// them would bypass the handler). Returns 0 or an errno value: EINVAL (no path, metadata too long),
/// ENOMEM, ENOTSUP (not Linux), or whatever open(2) said about the report file.
///
/// NOT async-signal-safe (allocates, opens, takes the loader lock). Serialised internally.
int vigil_crash_install(const vigil_crash_config *config);

/// Stops writing reports: the handlers stay installed (another handler may have saved them as
/// its previous one) but only pass signals on. With `remove_file`, the report file is deleted.
/// NOT async-signal-safe.
void vigil_crash_disarm(int remove_file);

/// Re-reads the loaded images into the snapshot the handler uses, when the loader reports that
/// images were added or removed since the last snapshot (or always with `force`). Returns 1
/// when a new snapshot was published, 0 when nothing changed, or -1 (not installed, or a crash
/// is in progress). It first retracts the report of a fault that the handler installed before
/// Vigil's recovered from by a long jump, when no later fault noticed it (docs/crash.md).
///
/// NOT async-signal-safe (`dl_iterate_phdr`): call from a background queue, e.g. periodically
/// and after `dlopen`. The handler reads the published snapshot and never one being written
/// (two buffers; see docs/crash.md).
int vigil_crash_refresh_images(int force);

/// Installs an alternate signal stack (`alternate_stack_bytes` of the install config, default
/// 64 KiB) on the calling thread unless it has one, so that a stack overflow on this thread is
/// caught, and unblocks the crash and park signals on it. Signal stacks are per thread: `vigil_crash_install` covers only its caller. Returns 0
/// or an errno value. The stack is never freed (the thread may still be handling a signal).
///
/// NOT async-signal-safe (allocates).
int vigil_crash_prepare_current_thread(void);

/// The handler's stage (`vigil_crash_stage_value`). Async-signal-safe.
uint32_t vigil_crash_stage(void);

/// The real-time signal used to park other threads while the crashed one walks their stacks, or
/// 0 before install. Async-signal-safe.
int vigil_crash_park_signal(void);

/// Copies the running totals. Async-signal-safe (plain loads of words written at install and by
/// the refresher).
void vigil_crash_get_counters(vigil_crash_counters *counters);

/// CRC-32 (IEEE 802.3, the polynomial zlib uses) of `length` bytes, continuing from `crc` (start
/// with 0). The raw report's end marker carries it. Async-signal-safe once the table exists (it
/// is built at install, or on the first call).
uint32_t vigil_crash_crc32(uint32_t crc, const void *bytes, size_t length);

#ifdef __cplusplus
}
#endif

#endif
