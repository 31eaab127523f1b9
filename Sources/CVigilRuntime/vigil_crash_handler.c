// The crash handler. See include/vigil_crash.h for the contract and docs/crash.md for the
// raw format and the safety argument of each function below.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_crash.h"
#include "vigil_activity_ring.h"
#include "vigil_crash_darwin.h"
#include "vigil_crash_memory_map.h"
#include "vigil_crash_report_writer.h"
#include "vigil_crash_unwind.h"
#include "vigil_images.h"
#include "vigil_stack_walk.h"
#include "vigil_thread_sampler.h"
#include "vigil_futex.h"

#include <errno.h>
#include <string.h>

#if defined(__linux__)

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define VIGIL_CRASH_SIGNAL_COUNT 6
static const int vigil_crash_signal_numbers[VIGIL_CRASH_SIGNAL_COUNT] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};

#define VIGIL_SECONDARY_MAX 4
#define VIGIL_MAPPINGS_MAX 8192u
#define VIGIL_SCRATCH_BYTES (16u * 1024u)
#define VIGIL_WRITE_BUFFER_BYTES (128u * 1024u)
#define VIGIL_MESSAGE_MAX 4096u
#define VIGIL_THREAD_NAME_MAX 16u
/// How long a parked thread waits for its release before it resumes on its own.
#define VIGIL_PARK_MAX_NS (2ull * 1000000000ull)
/// How long a thread that crashed while another was writing waits for the process to die.
#define VIGIL_SECONDARY_WAIT_NS (10ull * 1000000000ull)
#define VIGIL_LINK_MAP_MAX 4096u
/// Bytes a thread record needs besides its frames: tag, id, flags, source, count, name blob.
#define VIGIL_THREAD_RECORD_RESERVE 128u

/// `owner` while the owning thread's fault is with the handler installed before Vigil's (the
/// thread id stays in the low 32 bits; a serial above this bit tells one chain from the next).
#define VIGIL_OWNER_CHAINED (1ull << 32)
#define VIGIL_OWNER_SERIAL_SHIFT 33
/// Without an alternate signal stack, a thread counts as still inside the earlier handler when
/// its stack pointer is below the chaining frame by less than this.
#define VIGIL_CHAIN_STACK_SPAN ((uintptr_t)8 * 1024 * 1024)
/// How long a thread asked where it is (a chain probe) is given to answer.
#define VIGIL_PROBE_WAIT_NS (20ull * 1000000ull)
/// A park signal's value with this bit is a chain probe, not a park request.
#define VIGIL_PROBE_FLAG 0x80000000u

/// Where a chain probe found the owning thread.
enum {
    VIGIL_CHAIN_UNKNOWN = 0,
    /// Still inside the earlier handler (or deeper): its fault's fate is open.
    VIGIL_CHAIN_INSIDE = 1,
    /// Back in its own code (the handler left by a long jump), or gone: the fault was recovered.
    VIGIL_CHAIN_LEFT = 2,
};

/// Where a thread's registers came from (the `source` field of a `thread` record).
enum {
    VIGIL_REGISTERS_SIGNAL = 0,
    VIGIL_REGISTERS_PARKED = 1,
    VIGIL_REGISTERS_PROC = 2,
    VIGIL_REGISTERS_NONE = 3,
    VIGIL_REGISTERS_SECONDARY_CRASH = 4,
};

typedef struct vigil_park_slot {
    _Atomic uint32_t ready;
    int32_t tid;
    vigil_crash_registers registers;
} vigil_park_slot;

typedef struct vigil_secondary_crash {
    _Atomic uint32_t ready;
    int32_t tid;
    int32_t signal_number;
    int32_t code;
    uintptr_t fault_address;
    vigil_crash_registers registers;
} vigil_secondary_crash;

typedef struct vigil_thread_entry {
    int32_t tid;
    uint32_t parkable;
    uint32_t sent;
    uint32_t secondary;  // index + 1 into the secondary crashes, 0 if none
    char name[VIGIL_THREAD_NAME_MAX + 1];
} vigil_thread_entry;

/// Everything the handler uses, allocated at install. One per process.
static struct vigil_crash_state {
    int initialized;
    _Atomic uint32_t stage;
    /// Who owns the crash: 0 when free, else the thread id in the low 32 bits, plus
    /// VIGIL_OWNER_CHAINED and a serial while that thread's fault is with the earlier handler.
    /// Every change away from a chained value is a compare-and-swap of the whole word.
    _Atomic uint64_t owner;
    _Atomic uint32_t armed;
    pid_t pid;
    int fd;
    char report_path[PATH_MAX];
    struct sigaction previous[VIGIL_CRASH_SIGNAL_COUNT];
    /// Vigil's own action for the crash signals.
    struct sigaction action;

    uint8_t *write_buffer;
    uint8_t *metadata;
    uint32_t metadata_length;
    uintptr_t *frames;
    uint32_t max_frames;
    uint32_t max_frames_other;
    vigil_memory_map map;
    char *scratch;

    vigil_image *image_storage[2];
    vigil_image_list images[2];
    _Atomic uint32_t published_images;
    uint32_t image_capacity;

    int park_signal;
    vigil_park_slot *slots;
    vigil_thread_entry *threads;
    uint32_t max_threads;
    uint32_t thread_timeout_ms;
    _Atomic uint32_t park_ready;
    _Atomic uint32_t park_release;
    _Atomic uint32_t park_generation;

    vigil_secondary_crash secondary[VIGIL_SECONDARY_MAX];
    _Atomic uint32_t secondary_count;

    // The fault handed to the earlier handler (valid while `owner` is chained): an address in
    // the chaining frame, and the alternate signal stack that frame is on (0, 0 if none).
    uintptr_t chain_frame;
    uintptr_t chain_stack_low;
    uintptr_t chain_stack_high;
    _Atomic uint64_t chain_serial;
    _Atomic uint32_t probe_serial;
    /// The last probe's answer: its serial shifted left by 2, and a VIGIL_CHAIN_ value.
    _Atomic uint32_t probe_answer;
    uint32_t reserve_bytes;

    void *swift_message_slot;
    /// A language-level exception recorded before the process aborts (vigil_crash_set_exception).
    char exception_type[256];
    char exception_reason[4096];
    _Atomic uint32_t exception_set;
    vigil_stack_bounds install_thread_bounds;
    int32_t install_thread_tid;
    uint32_t alternate_stack_bytes;

    uint32_t test_fault_section;
    uint32_t test_stall_section;
    uint32_t test_stall_ms;

    // Crash-time state (written only by the thread that owns the crash).
    vigil_report_writer writer;
    volatile uint32_t section;
    volatile int crash_signal;
    volatile uint32_t finalized;
    uint64_t entry_ns;
    /// Monotonic times at the end of the crashed thread, the images and the other threads.
    uint64_t marks_ns[3];

    vigil_crash_counters counters;
} vigil_crash;

static pthread_mutex_t vigil_crash_install_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t vigil_crash_refresh_lock = PTHREAD_MUTEX_INITIALIZER;

// MARK: - Small async-signal-safe helpers

static int32_t vigil_gettid(void) { return (int32_t)syscall(SYS_gettid); }

static int32_t vigil_owner_tid(uint64_t owner) { return (int32_t)(uint32_t)owner; }

// Whether a thread of the chained fault whose stack pointer is `sp` is still inside the call to
// the earlier handler. On an alternate signal stack this is exact: a thread that left the
// handler by a long jump runs on its own stack again. Without one it is a bound: below the
// chaining frame, and not too far.
static int vigil_chain_holds(uintptr_t sp) {
    uintptr_t frame = vigil_crash.chain_frame;
    if (vigil_crash.chain_stack_high != 0) return sp >= vigil_crash.chain_stack_low && sp < frame;
    return sp < frame && frame - sp < VIGIL_CHAIN_STACK_SPAN;
}

static void vigil_sleep_ms(uint32_t milliseconds) {
    struct timespec duration = {(time_t)(milliseconds / 1000), (long)(milliseconds % 1000) * 1000000L};
    while (nanosleep(&duration, &duration) != 0 && errno == EINTR) {}
}

static int vigil_signal_index(int signal_number) {
    for (int index = 0; index < VIGIL_CRASH_SIGNAL_COUNT; index++) {
        if (vigil_crash_signal_numbers[index] == signal_number) return index;
    }
    return -1;
}

// Appends the decimal form of `value` to `text` at `*length` (bounded by `capacity`).
static void vigil_append_decimal(char *text, size_t *length, size_t capacity, uint64_t value) {
    char digits[24];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (count > 0 && *length + 1 < capacity) text[(*length)++] = digits[--count];
    text[*length] = '\0';
}

static void vigil_append_text(char *text, size_t *length, size_t capacity, const char *suffix) {
    while (*suffix != '\0' && *length + 1 < capacity) text[(*length)++] = *suffix++;
    text[*length] = '\0';
}

// "/proc/self/task/<tid>/<leaf>"
static void vigil_task_path(char *path, size_t capacity, int32_t tid, const char *leaf) {
    size_t length = 0;
    path[0] = '\0';
    vigil_append_text(path, &length, capacity, "/proc/self/task/");
    vigil_append_decimal(path, &length, capacity, (uint64_t)tid);
    vigil_append_text(path, &length, capacity, "/");
    vigil_append_text(path, &length, capacity, leaf);
}

// Reads up to `capacity - 1` bytes of a small /proc file into `buffer` (NUL-terminated).
static ssize_t vigil_read_small_file(const char *path, char *buffer, size_t capacity) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t total = 0;
    while (total + 1 < capacity) {
        ssize_t got = read(fd, buffer + total, capacity - 1 - total);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        total += (size_t)got;
    }
    close(fd);
    buffer[total] = '\0';
    return (ssize_t)total;
}

static uint64_t vigil_parse_hex_word(const char **cursor) {
    const char *p = *cursor;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    uint64_t value = 0;
    int digits = 0;
    while (digits < 16) {
        char c = *p;
        int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (digit < 0) break;
        value = (value << 4) | (uint64_t)digit;
        p++;
        digits++;
    }
    *cursor = p;
    return value;
}

// MARK: - Dying with the original signal

static int vigil_is_fault_signal(int signal_number) {
    return signal_number == SIGSEGV || signal_number == SIGBUS || signal_number == SIGILL || signal_number == SIGFPE;
}

static void vigil_unblock(int signal_number) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal_number);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

// Restores the default action and raises the signal on this thread: the process dies with it
// (and dumps core when the default action does).
static void vigil_die_with(int signal_number) {
    struct sigaction default_action;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    for (int attempt = 0; attempt < 3; attempt++) {
        sigaction(signal_number, &default_action, NULL);
        vigil_unblock(signal_number);
        syscall(SYS_tgkill, getpid(), vigil_gettid(), signal_number);
    }
    // Unreachable unless something keeps re-installing a handler that returns.
    _exit(128 + signal_number);
}

// Hands the signal to the handler installed before ours (or the default action): a fault the
// kernel raised is re-raised by returning, so that the previous handler (or the core dump) sees
// the original context; anything else is re-raised with tgkill. If the previous handler returns
// from a re-raised signal, the default action follows, so the process still dies.
static void vigil_pass_on(int signal_number, siginfo_t *info) {
    int index = vigil_signal_index(signal_number);
    if (index < 0) {
        vigil_die_with(signal_number);
        return;
    }
    struct sigaction previous = vigil_crash.previous[index];
    int is_handler = (previous.sa_flags & SA_SIGINFO) ? previous.sa_sigaction != NULL
                                                      : (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN);
    if (!is_handler) {
        // SIG_IGN for a fault would re-fault forever; the default action is what the process
        // would have had.
        memset(&previous, 0, sizeof previous);
        previous.sa_handler = SIG_DFL;
        sigemptyset(&previous.sa_mask);
    }
    sigaction(signal_number, &previous, NULL);
    if (info != NULL && info->si_code > 0 && vigil_is_fault_signal(signal_number)) return;
    vigil_unblock(signal_number);
    syscall(SYS_tgkill, getpid(), vigil_gettid(), signal_number);
    vigil_die_with(signal_number);
}

// MARK: - Report sections

static void vigil_enter_section(uint32_t section) {
    vigil_crash.section = section;
    atomic_signal_fence(memory_order_seq_cst);
    if (vigil_crash.test_stall_section == section) {
        vigil_report_flush(&vigil_crash.writer);
        vigil_sleep_ms(vigil_crash.test_stall_ms);
    }
    if (vigil_crash.test_fault_section == section) {
        // A deliberate fault inside the handler, for the tests of second crashes.
        volatile uintptr_t *bad = (volatile uintptr_t *)(uintptr_t)8;
        (void)*bad;
    }
}

static const char *vigil_architecture_name(void) { return vigil_image_architecture(); }

static void vigil_write_registers(vigil_report_writer *writer, const void *ucontext) {
    if (ucontext == NULL) return;
    const ucontext_t *context = (const ucontext_t *)ucontext;
#if defined(__x86_64__)
    static const struct { const char *name; int index; } names[] = {
        {"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX}, {"rsi", REG_RSI},
        {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"rsp", REG_RSP}, {"r8", REG_R8}, {"r9", REG_R9},
        {"r10", REG_R10}, {"r11", REG_R11}, {"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14},
        {"r15", REG_R15}, {"rip", REG_RIP}, {"rflags", REG_EFL}, {"cr2", REG_CR2}, {"trapno", REG_TRAPNO},
        {"err", REG_ERR},
    };
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        vigil_report_begin(writer, "reg");
        vigil_report_word(writer, names[index].name);
        vigil_report_hex(writer, (uint64_t)context->uc_mcontext.gregs[names[index].index]);
        vigil_report_end(writer);
    }
#elif defined(__aarch64__)
    static const char *names[] = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
                                  "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
                                  "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "fp", "lr"};
    for (int index = 0; index < 31; index++) {
        vigil_report_begin(writer, "reg");
        vigil_report_word(writer, names[index]);
        vigil_report_hex(writer, (uint64_t)context->uc_mcontext.regs[index]);
        vigil_report_end(writer);
    }
    const struct { const char *name; uint64_t value; } more[] = {
        {"sp", context->uc_mcontext.sp}, {"pc", context->uc_mcontext.pc},
        {"pstate", context->uc_mcontext.pstate}, {"far", context->uc_mcontext.fault_address},
    };
    for (size_t index = 0; index < sizeof more / sizeof more[0]; index++) {
        vigil_report_begin(writer, "reg");
        vigil_report_word(writer, more[index].name);
        vigil_report_hex(writer, more[index].value);
        vigil_report_end(writer);
    }
#else
    (void)writer;
    (void)context;
#endif
}

static void vigil_read_thread_name(int32_t tid, char *name) {
    char path[64];
    char text[64];
    vigil_task_path(path, sizeof path, tid, "comm");
    name[0] = '\0';
    ssize_t length = vigil_read_small_file(path, text, sizeof text);
    if (length <= 0) return;
    size_t copy = 0;
    while (copy < (size_t)length && copy < VIGIL_THREAD_NAME_MAX && text[copy] != '\n') {
        name[copy] = text[copy];
        copy++;
    }
    name[copy] = '\0';
}

// `thread <tid> <crashed> <flags> <source> <count> <frame>... <name blob>`
static void vigil_write_thread(vigil_report_writer *writer, int32_t tid, int crashed, uint32_t flags, uint32_t source,
                               const uintptr_t *frames, uint32_t count, const char *name) {
    vigil_report_begin(writer, "thread");
    // Keep the innermost frames that fit the buffer: a torn record would void the whole report.
    uint32_t fit = vigil_report_hex_capacity(writer, VIGIL_THREAD_RECORD_RESERVE);
    if (count > fit) {
        count = fit;
        flags |= VIGIL_WALK_TRUNCATED;
    }
    vigil_report_u64(writer, (uint64_t)tid);
    vigil_report_u64(writer, crashed ? 1 : 0);
    vigil_report_hex(writer, flags);
    vigil_report_u64(writer, source);
    vigil_report_u64(writer, count);
    for (uint32_t index = 0; index < count; index++) vigil_report_hex(writer, frames[index]);
    vigil_report_blob(writer, name, (uint32_t)strnlen(name, VIGIL_THREAD_NAME_MAX));
    vigil_report_end(writer);
}

static void vigil_write_swift_message(vigil_report_writer *writer) {
    if (vigil_crash.swift_message_slot == NULL) return;
    const char *message = __atomic_load_n((const char *const *)vigil_crash.swift_message_slot, __ATOMIC_ACQUIRE);
    if (message == NULL) return;
    const vigil_mapping *mapping = vigil_memory_map_find(&vigil_crash.map, (uintptr_t)message);
    if (mapping == NULL || (mapping->flags & VIGIL_MAPPING_READ) == 0) return;
    uintptr_t available = mapping->end - (uintptr_t)message;
    uint32_t limit = available < VIGIL_MESSAGE_MAX ? (uint32_t)available : VIGIL_MESSAGE_MAX;
    uint32_t length = 0;
    while (length < limit && message[length] != '\0') length++;
    vigil_report_begin(writer, "message");
    vigil_report_word(writer, "swift");
    vigil_report_blob(writer, message, length);
    vigil_report_end(writer);
}

static void vigil_write_exception(vigil_report_writer *writer) {
    if (!atomic_load(&vigil_crash.exception_set)) return;
    vigil_report_begin(writer, "exception");
    vigil_report_blob(writer, vigil_crash.exception_type, (uint32_t)strnlen(vigil_crash.exception_type, sizeof vigil_crash.exception_type));
    vigil_report_blob(writer, vigil_crash.exception_reason,
                      (uint32_t)strnlen(vigil_crash.exception_reason, sizeof vigil_crash.exception_reason));
    vigil_report_end(writer);
}

static void vigil_write_images(vigil_report_writer *writer) {
    uint32_t published = atomic_load(&vigil_crash.published_images) & 1u;
    const vigil_image_list *list = &vigil_crash.images[published];
    uint32_t count = list->count < list->capacity ? list->count : list->capacity;
    vigil_report_begin(writer, "images");
    vigil_report_u64(writer, count);
    vigil_report_u64(writer, list->dropped);
    vigil_report_u64(writer, list->skipped);
    vigil_report_end(writer);
    for (uint32_t index = 0; index < count; index++) {
        const vigil_image *image = &list->images[index];
        vigil_report_begin(writer, "image");
        vigil_report_hex(writer, image->load_address);
        vigil_report_hex(writer, image->size);
        vigil_report_hex(writer, image->bias);
        vigil_report_hex(writer, image->lowest_vaddr);
        vigil_report_hex_bytes(writer, image->id, image->id_length < VIGIL_IMAGE_ID_CAPACITY ? image->id_length : VIGIL_IMAGE_ID_CAPACITY);
        vigil_report_blob(writer, image->path, (uint32_t)strnlen(image->path, VIGIL_IMAGE_PATH_CAPACITY));
        vigil_report_end(writer);
    }

    // Libraries loaded since the last snapshot: the loader's own list (`_r_debug`) is plain
    // memory; each entry is checked against the memory map before it is read. Their build ids
    // are not read here (see docs/crash.md); their extent comes from the mappings of their file.
    const vigil_memory_map *map = &vigil_crash.map;
    if (!vigil_memory_map_is_readable(map, (uintptr_t)&_r_debug, sizeof _r_debug)) return;
    if (_r_debug.r_version < 1 || _r_debug.r_state != RT_CONSISTENT) return;
    const struct link_map *entry = _r_debug.r_map;
    for (uint32_t steps = 0; entry != NULL && steps < VIGIL_LINK_MAP_MAX; steps++) {
        if (!vigil_memory_map_is_readable(map, (uintptr_t)entry, sizeof *entry)) break;
        uintptr_t bias = (uintptr_t)entry->l_addr;
        const char *name = entry->l_name;
        int known = 0;
        for (uint32_t index = 0; index < count && !known; index++) known = list->images[index].bias == bias;
        if (!known && bias != 0 && name != NULL && vigil_memory_map_is_readable(map, (uintptr_t)name, 1)) {
            const vigil_mapping *first = vigil_memory_map_find(map, bias);
            if (first != NULL && (first->flags & VIGIL_MAPPING_FILE) != 0) {
                const vigil_mapping *last = first;
                const vigil_mapping *stop = map->mappings + (map->count < map->capacity ? map->count : map->capacity);
                while (last + 1 < stop && last[1].inode == first->inode && last[1].start == last->end) last++;
                const vigil_mapping *name_mapping = vigil_memory_map_find(map, (uintptr_t)name);
                uintptr_t name_room = name_mapping ? name_mapping->end - (uintptr_t)name : 0;
                uint32_t name_length = 0;
                while (name_length < name_room && name_length < VIGIL_IMAGE_PATH_CAPACITY && name[name_length] != '\0') name_length++;
                vigil_report_begin(writer, "late-image");
                vigil_report_hex(writer, first->start);
                vigil_report_hex(writer, last->end - first->start);
                vigil_report_hex(writer, bias);
                vigil_report_blob(writer, name, name_length);
                vigil_report_end(writer);
            }
        }
        entry = entry->l_next;
    }
}

// MARK: - Other threads

static void vigil_park_handle_signal(int signal_number, siginfo_t *info, void *ucontext) {
    (void)signal_number;
    int saved_errno = errno;
    if (info == NULL || info->si_code != SI_QUEUE || info->si_pid != vigil_crash.pid) goto out;
    uint32_t value = (uint32_t)info->si_value.sival_int;
    if ((value & VIGIL_PROBE_FLAG) != 0) {
        // A chain probe: say whether this thread is still inside the earlier handler.
        uint64_t owner = atomic_load(&vigil_crash.owner);
        uint32_t where = VIGIL_CHAIN_LEFT;
        vigil_crash_registers registers;
        if ((owner & VIGIL_OWNER_CHAINED) != 0 && vigil_owner_tid(owner) == vigil_gettid()) {
            where = !vigil_crash_registers_from_ucontext(ucontext, &registers) ? VIGIL_CHAIN_UNKNOWN
                    : vigil_chain_holds(registers.sp)                         ? VIGIL_CHAIN_INSIDE
                                                                              : VIGIL_CHAIN_LEFT;
        }
        atomic_store(&vigil_crash.probe_answer, ((value & 0x7FFFu) << 2) | where);
        vigil_futex_wake(&vigil_crash.probe_answer, INT_MAX);
        goto out;
    }
    uint32_t generation = atomic_load(&vigil_crash.park_generation);
    uint32_t index = value & 0xFFFFu;
    if ((value >> 16) != (generation & 0x7FFFu) || index >= vigil_crash.max_threads) goto out;
    vigil_park_slot *slot = &vigil_crash.slots[index];
    if (!vigil_crash_registers_from_ucontext(ucontext, &slot->registers)) goto out;
    slot->tid = vigil_gettid();
    atomic_store(&slot->ready, 1);
    atomic_fetch_add(&vigil_crash.park_ready, 1);
    vigil_futex_wake(&vigil_crash.park_ready, INT_MAX);
    // Stay here, with the stack untouched above the interrupted frame, until the crashed thread
    // has walked it; never longer than VIGIL_PARK_MAX_NS.
    uint64_t deadline = vigil_monotonic_now_ns() + VIGIL_PARK_MAX_NS;
    while (1) {
        uint32_t release = atomic_load(&vigil_crash.park_release);
        if (release == generation) break;
        uint64_t now = vigil_monotonic_now_ns();
        if (now >= deadline) break;
        vigil_futex_wait(&vigil_crash.park_release, release, deadline - now);
    }
out:
    errno = saved_errno;
}

// Lists /proc/self/task into `threads`; returns how many, and counts the ones that did not fit.
static uint32_t vigil_list_threads(int32_t crashed_tid, uint32_t *skipped) {
    *skipped = 0;
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    uint32_t count = 0;
    while (1) {
        long got = syscall(SYS_getdents64, fd, vigil_crash.scratch, VIGIL_SCRATCH_BYTES);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        long offset = 0;
        while (offset + 19 < got) {
            const char *record = vigil_crash.scratch + offset;
            uint16_t length;
            memcpy(&length, record + 16, sizeof length);
            if (length == 0 || offset + length > got) break;
            const char *name = record + 19;
            uint64_t tid = 0;
            int digits = 0;
            while (digits < 10 && name[digits] >= '0' && name[digits] <= '9') tid = tid * 10 + (uint64_t)(name[digits++] - '0');
            offset += length;
            if (digits == 0 || name[digits] != '\0' || (int32_t)tid == crashed_tid) continue;
            if (count >= vigil_crash.max_threads) {
                (*skipped)++;
                continue;
            }
            vigil_thread_entry *entry = &vigil_crash.threads[count++];
            memset(entry, 0, sizeof *entry);
            entry->tid = (int32_t)tid;
        }
    }
    close(fd);
    return count;
}

// Reads the thread's name and whether it blocks the park signal, from its status file.
static void vigil_read_thread_status(vigil_thread_entry *entry) {
    char path[64];
    vigil_task_path(path, sizeof path, entry->tid, "status");
    ssize_t length = vigil_read_small_file(path, vigil_crash.scratch, 4096);
    entry->parkable = 0;
    if (length <= 0) return;
    const char *text = vigil_crash.scratch;
    const char *end = text + length;
    for (const char *line = text; line < end;) {
        const char *next = line;
        while (next < end && *next != '\n') next++;
        if (next - line > 6 && memcmp(line, "Name:\t", 6) == 0) {
            size_t copy = 0;
            for (const char *c = line + 6; c < next && copy < VIGIL_THREAD_NAME_MAX; c++) entry->name[copy++] = *c;
            entry->name[copy] = '\0';
        } else if (next - line > 8 && memcmp(line, "SigBlk:\t", 8) == 0) {
            const char *cursor = line + 8;
            uint64_t blocked = vigil_parse_hex_word(&cursor);
            int bit = vigil_crash.park_signal - 1;
            entry->parkable = bit >= 0 && bit < 64 && ((blocked >> bit) & 1u) == 0;
        }
        line = next + 1;
    }
}

// A thread that could not be parked: the stack and instruction pointers the kernel shows for a
// thread blocked in a system call ("nr args… sp pc", or "-1 sp pc"; "running" has none).
static int vigil_read_proc_registers(int32_t tid, vigil_crash_registers *registers) {
    char path[64];
    char text[256];
    vigil_task_path(path, sizeof path, tid, "syscall");
    if (vigil_read_small_file(path, text, sizeof text) <= 0) return 0;
    uint64_t words[9];
    int count = 0;
    const char *cursor = text;
    while (*cursor != '\0' && count < 9) {
        while (*cursor == ' ') cursor++;
        if (*cursor == '-') {
            // "-1": blocked, not in a system call.
            cursor++;
            while (*cursor >= '0' && *cursor <= '9') cursor++;
            words[count++] = 0;
            continue;
        }
        if (!((*cursor >= '0' && *cursor <= '9') || (*cursor >= 'a' && *cursor <= 'f'))) break;
        const char *start = cursor;
        if (count == 0) {
            uint64_t value = 0;
            while (*cursor >= '0' && *cursor <= '9') value = value * 10 + (uint64_t)(*cursor++ - '0');
            words[count++] = value;
        } else {
            words[count++] = vigil_parse_hex_word(&cursor);
        }
        if (cursor == start) break;
    }
    if (count != 9 && count != 3) return 0;
    memset(registers, 0, sizeof *registers);
    registers->sp = (uintptr_t)words[count - 2];
    registers->pc = (uintptr_t)words[count - 1];
    return registers->sp != 0 && registers->pc != 0;
}

static void vigil_write_other_threads(vigil_report_writer *writer, int32_t crashed_tid) {
    uint32_t skipped = 0;
    uint32_t count = vigil_list_threads(crashed_tid, &skipped);
    uint32_t generation = (atomic_fetch_add(&vigil_crash.park_generation, 1) + 1) & 0x7FFFu;
    atomic_store(&vigil_crash.park_generation, generation);
    atomic_store(&vigil_crash.park_ready, 0);
    uint32_t secondary_count = atomic_load(&vigil_crash.secondary_count);
    if (secondary_count > VIGIL_SECONDARY_MAX) secondary_count = VIGIL_SECONDARY_MAX;

    // Name, signal mask, and a park request to each thread that can take one.
    uint32_t sent = 0;
    uint32_t send_failed = 0;
    for (uint32_t index = 0; index < count; index++) {
        vigil_thread_entry *entry = &vigil_crash.threads[index];
        atomic_store(&vigil_crash.slots[index].ready, 0);
        vigil_read_thread_status(entry);
        for (uint32_t other = 0; other < secondary_count; other++) {
            if (atomic_load(&vigil_crash.secondary[other].ready) && vigil_crash.secondary[other].tid == entry->tid) {
                entry->secondary = other + 1;
                entry->parkable = 0;
            }
        }
        if (!entry->parkable || vigil_crash.park_signal == 0) continue;
        siginfo_t info;
        memset(&info, 0, sizeof info);
        info.si_signo = vigil_crash.park_signal;
        info.si_code = SI_QUEUE;
        info.si_pid = vigil_crash.pid;
        info.si_uid = getuid();
        info.si_value.sival_int = (int)((generation << 16) | index);
        if (syscall(SYS_rt_tgsigqueueinfo, vigil_crash.pid, entry->tid, vigil_crash.park_signal, &info) == 0) {
            entry->sent = 1;
            sent++;
        } else {
            send_failed++;
        }
    }

    // Wait (bounded) until every thread that was sent a request is parked.
    uint64_t deadline = vigil_monotonic_now_ns() + (uint64_t)vigil_crash.thread_timeout_ms * 1000000ull;
    while (1) {
        uint32_t ready = atomic_load(&vigil_crash.park_ready);
        if (ready >= sent) break;
        uint64_t now = vigil_monotonic_now_ns();
        if (now >= deadline) break;
        vigil_futex_wait(&vigil_crash.park_ready, ready, deadline - now);
    }

    uint32_t parked = 0;
    uint32_t from_proc = 0;
    uint32_t without = 0;
    for (uint32_t index = 0; index < count; index++) {
        vigil_thread_entry *entry = &vigil_crash.threads[index];
        vigil_crash_registers registers;
        uint32_t source;
        if (entry->sent && atomic_load(&vigil_crash.slots[index].ready)) {
            registers = vigil_crash.slots[index].registers;
            source = VIGIL_REGISTERS_PARKED;
            parked++;
        } else if (entry->secondary) {
            registers = vigil_crash.secondary[entry->secondary - 1].registers;
            source = VIGIL_REGISTERS_SECONDARY_CRASH;
        } else if (vigil_read_proc_registers(entry->tid, &registers)) {
            source = VIGIL_REGISTERS_PROC;
            from_proc++;
        } else {
            source = VIGIL_REGISTERS_NONE;
            without++;
        }
        uint32_t flags = 0;
        uint32_t frames = 0;
        if (source != VIGIL_REGISTERS_NONE) {
            vigil_stack_bounds none = {0, 0};
            frames = vigil_crash_unwind(&vigil_crash.map, &registers, none, vigil_crash.frames, vigil_crash.max_frames_other, &flags);
            if (source == VIGIL_REGISTERS_PROC) flags |= VIGIL_UNWIND_FROM_PROC;
        } else {
            flags = VIGIL_UNWIND_NO_REGISTERS;
        }
        vigil_write_thread(writer, entry->tid, 0, flags, source, vigil_crash.frames, frames, entry->name);
    }

    // Let the parked threads go.
    atomic_store(&vigil_crash.park_release, generation);
    vigil_futex_wake(&vigil_crash.park_release, INT_MAX);

    vigil_report_begin(writer, "threads");
    vigil_report_u64(writer, count);
    vigil_report_u64(writer, parked);
    vigil_report_u64(writer, from_proc);
    vigil_report_u64(writer, without);
    vigil_report_u64(writer, sent - parked);
    vigil_report_u64(writer, send_failed);
    vigil_report_u64(writer, skipped);
    vigil_report_end(writer);
}

static void vigil_write_secondary_crashes(vigil_report_writer *writer, int32_t crashed_tid) {
    uint32_t count = atomic_load(&vigil_crash.secondary_count);
    if (count > VIGIL_SECONDARY_MAX) count = VIGIL_SECONDARY_MAX;
    for (uint32_t index = 0; index < count; index++) {
        const vigil_secondary_crash *crash = &vigil_crash.secondary[index];
        // A thread that waited as a secondary crash and then took the report over is the crash.
        if (!atomic_load(&((vigil_secondary_crash *)crash)->ready) || crash->tid == crashed_tid) continue;
        vigil_report_begin(writer, "secondary");
        vigil_report_u64(writer, (uint64_t)crash->tid);
        vigil_report_u64(writer, (uint64_t)crash->signal_number);
        vigil_report_i64(writer, crash->code);
        vigil_report_hex(writer, crash->fault_address);
        vigil_report_hex(writer, crash->registers.pc);
        vigil_report_end(writer);
    }
}

static void vigil_write_ending(vigil_report_writer *writer) {
    vigil_report_begin(writer, "timing");
    vigil_report_u64(writer, vigil_crash.entry_ns);
    for (int index = 0; index < 3; index++) vigil_report_u64(writer, vigil_crash.marks_ns[index]);
    vigil_report_u64(writer, vigil_monotonic_now_ns());
    vigil_report_end(writer);
    int error = vigil_report_finish(writer);
    atomic_store(&vigil_crash.stage, error == 0 ? VIGIL_CRASH_STAGE_WRITTEN : VIGIL_CRASH_STAGE_FAILED);
    vigil_futex_wake(&vigil_crash.stage, INT_MAX);
}

// MARK: - Chaining to a handler that may recover

static void vigil_crash_handle_signal(int signal_number, siginfo_t *info, void *ucontext);

// The chained fault was recovered: its report goes (the file is empty again, as a live run's
// file is, with its reservation back), the crash-time state is reset, and the crash passes to
// `next_owner` (0: nobody; capture is armed again).
static void vigil_retract(uint64_t next_owner) {
    if (vigil_crash.fd >= 0) {
        while (ftruncate(vigil_crash.fd, 0) != 0 && errno == EINTR) {}
        lseek(vigil_crash.fd, 0, SEEK_SET);
        if (vigil_crash.counters.reserved) fallocate(vigil_crash.fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)vigil_crash.reserve_bytes);
    }
    vigil_crash.crash_signal = 0;
    vigil_crash.finalized = 0;
    vigil_crash.section = VIGIL_CRASH_SECTION_NONE;
    for (int index = 0; index < VIGIL_SECONDARY_MAX; index++) atomic_store(&vigil_crash.secondary[index].ready, 0);
    atomic_store(&vigil_crash.secondary_count, 0);
    vigil_crash.counters.faults_recovered++;
    atomic_store(&vigil_crash.stage, VIGIL_CRASH_STAGE_ARMED);
    vigil_futex_wake(&vigil_crash.stage, INT_MAX);
    atomic_store(&vigil_crash.owner, next_owner);
}

// Where the thread `tid` of the chained fault is. The thread itself knows from its stack pointer;
// another thread is asked with a chain probe (the park signal), and when it does not answer in
// time (it blocks the signal) its stack pointer is read from /proc when it waits in a system
// call. A thread that no longer exists has left.
static uint32_t vigil_chain_locate(int32_t tid) {
    if (tid == vigil_gettid()) {
        volatile uintptr_t here = 0;
        return vigil_chain_holds((uintptr_t)&here) ? VIGIL_CHAIN_INSIDE : VIGIL_CHAIN_LEFT;
    }
    if (vigil_crash.park_signal != 0) {
        uint32_t serial = (atomic_fetch_add(&vigil_crash.probe_serial, 1) + 1) & 0x7FFFu;
        siginfo_t info;
        memset(&info, 0, sizeof info);
        info.si_signo = vigil_crash.park_signal;
        info.si_code = SI_QUEUE;
        info.si_pid = vigil_crash.pid;
        info.si_uid = getuid();
        info.si_value.sival_int = (int)(VIGIL_PROBE_FLAG | serial);
        if (syscall(SYS_rt_tgsigqueueinfo, vigil_crash.pid, tid, vigil_crash.park_signal, &info) != 0) {
            if (errno == ESRCH) return VIGIL_CHAIN_LEFT;
        } else {
            uint64_t deadline = vigil_monotonic_now_ns() + VIGIL_PROBE_WAIT_NS;
            while (1) {
                uint32_t answer = atomic_load(&vigil_crash.probe_answer);
                if ((answer >> 2) == serial) return answer & 3u;
                uint64_t now = vigil_monotonic_now_ns();
                if (now >= deadline) break;
                vigil_futex_wait(&vigil_crash.probe_answer, answer, deadline - now);
            }
        }
    }
    vigil_crash_registers registers;
    if (vigil_read_proc_registers(tid, &registers)) return vigil_chain_holds(registers.sp) ? VIGIL_CHAIN_INSIDE : VIGIL_CHAIN_LEFT;
    return VIGIL_CHAIN_UNKNOWN;
}

// Whether the fault goes to the handler installed before Vigil's, which may recover from it: a
// fault the kernel raised (the instruction runs again when the handlers return) and an earlier
// action that is a handler function. SIG_DFL and SIG_IGN keep the plain path: the fault is fatal.
static int vigil_chain_possible(int signal_number, const siginfo_t *info) {
    int index = vigil_signal_index(signal_number);
    if (index < 0 || info == NULL || info->si_code <= 0 || !vigil_is_fault_signal(signal_number)) return 0;
    void (*handler)(int) = vigil_crash.previous[index].sa_handler;
    return handler != SIG_DFL && handler != SIG_IGN;
}

// Hands the fault, whose report is complete on disk, to the earlier handler, called as the
// kernel would have called it (its mask, SA_NODEFER, SA_RESETHAND, SA_SIGINFO), on this stack,
// with `owner` marked chained so that a later fault can tell whether this one was recovered:
// - it returns and Vigil's action is still installed (or the handler installed itself again,
//   which puts Vigil's back in front of it): it handled the fault (the instruction runs again,
//   and a fault that is still there comes back here), so the report goes and capture is armed
//   again;
// - it returns after changing the action (to the default, to let the fault kill the process):
//   the report stays;
// - it never returns: it ended the process (the report stays), or it left by a long jump, which
//   the next fault, a chain probe (vigil_chain_locate) or vigil_settle_chain notices.
static void vigil_chain(int signal_number, siginfo_t *info, void *ucontext, int32_t tid) {
    int index = vigil_signal_index(signal_number);
    struct sigaction previous = vigil_crash.previous[index];
    if ((previous.sa_flags & SA_RESETHAND) != 0) {
        // The kernel would have reset that action when it delivered the signal to it: it is spent.
        memset(&vigil_crash.previous[index], 0, sizeof vigil_crash.previous[index]);
        vigil_crash.previous[index].sa_handler = SIG_DFL;
        sigemptyset(&vigil_crash.previous[index].sa_mask);
    }
    volatile uintptr_t frame_marker = 0;
    vigil_crash.chain_frame = (uintptr_t)&frame_marker;
    vigil_crash.chain_stack_low = 0;
    vigil_crash.chain_stack_high = 0;
    // The kernel saved the thread's alternate stack in the context it handed us.
    const ucontext_t *context = (const ucontext_t *)ucontext;
    if (context != NULL && (context->uc_stack.ss_flags & SS_DISABLE) == 0 && context->uc_stack.ss_size > 0) {
        uintptr_t low = (uintptr_t)context->uc_stack.ss_sp;
        uintptr_t high = low + context->uc_stack.ss_size;
        if (vigil_crash.chain_frame >= low && vigil_crash.chain_frame < high) {
            vigil_crash.chain_stack_low = low;
            vigil_crash.chain_stack_high = high;
        }
    }
    uint64_t serial = atomic_fetch_add(&vigil_crash.chain_serial, 1) + 1;
    uint64_t chained = (serial << VIGIL_OWNER_SERIAL_SHIFT) | VIGIL_OWNER_CHAINED | (uint32_t)tid;
    atomic_store(&vigil_crash.owner, chained);

    sigset_t blocked = previous.sa_mask;
    if ((previous.sa_flags & SA_NODEFER) == 0) sigaddset(&blocked, signal_number);
    sigset_t saved;
    pthread_sigmask(SIG_BLOCK, &blocked, &saved);
    if ((previous.sa_flags & SA_SIGINFO) != 0) {
        previous.sa_sigaction(signal_number, info, ucontext);
    } else {
        previous.sa_handler(signal_number);
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    (void)frame_marker;

    struct sigaction current;
    int recovered = 0;
    if (sigaction(signal_number, NULL, &current) == 0) {
        if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == vigil_crash_handle_signal) {
            recovered = 1;
        } else if (current.sa_handler == previous.sa_handler) {
            // It installed itself again (as a System V style one-shot handler does once it has
            // dealt with the signal): recovered. Vigil's action goes back in front of it.
            vigil_crash.previous[index] = current;
            sigaction(signal_number, &vigil_crash.action, NULL);
            recovered = 1;
        }
    }
    uint64_t expected = chained;
    // Another thread may have judged this chain over (and taken the crash) meanwhile: then the
    // crash is no longer this thread's to settle.
    if (!atomic_compare_exchange_strong(&vigil_crash.owner, &expected, (uint64_t)(uint32_t)tid)) return;
    if (recovered) vigil_retract(0);
}

// Outside a signal handler: retracts the report of a chained fault whose thread has left the
// earlier handler by a long jump (it recovered) when no later fault came to notice it.
static void vigil_settle_chain(void) {
    if (!vigil_crash.initialized || getpid() != vigil_crash.pid) return;
    uint64_t owner = atomic_load(&vigil_crash.owner);
    if ((owner & VIGIL_OWNER_CHAINED) == 0) return;
    if (vigil_chain_locate(vigil_owner_tid(owner)) != VIGIL_CHAIN_LEFT) return;
    if (atomic_compare_exchange_strong(&vigil_crash.owner, &owner, (uint64_t)(uint32_t)vigil_gettid())) vigil_retract(0);
}


// MARK: - The handler

// The first crash: write the report, then pass the signal on.
static void vigil_crash_primary(int signal_number, siginfo_t *info, void *ucontext, int32_t tid) {
    vigil_crash.entry_ns = vigil_monotonic_now_ns();
    vigil_crash.crash_signal = signal_number;
    atomic_store(&vigil_crash.stage, VIGIL_CRASH_STAGE_WRITING);
    vigil_report_writer *writer = &vigil_crash.writer;
    vigil_report_writer_init(writer, vigil_crash.fd, vigil_crash.write_buffer, VIGIL_WRITE_BUFFER_BYTES);
    struct timespec wall = {0, 0};
    clock_gettime(CLOCK_REALTIME, &wall);

    vigil_enter_section(VIGIL_CRASH_SECTION_SIGNAL);
    vigil_report_begin(writer, "VIGILCRASH");
    vigil_report_u64(writer, VIGIL_CRASH_FORMAT_VERSION);
    vigil_report_word(writer, vigil_architecture_name());
    vigil_report_u64(writer, sizeof(uintptr_t));
    vigil_report_end(writer);
    vigil_report_begin(writer, "os");
    vigil_report_word(writer, "linux");
    vigil_report_end(writer);
    vigil_report_begin(writer, "process");
    vigil_report_u64(writer, (uint64_t)vigil_crash.pid);
    vigil_report_u64(writer, (uint64_t)tid);
    vigil_report_end(writer);
    vigil_report_begin(writer, "time");
    vigil_report_u64(writer, (uint64_t)wall.tv_sec);
    vigil_report_u64(writer, (uint64_t)wall.tv_nsec);
    vigil_report_u64(writer, vigil_crash.entry_ns);
    vigil_report_end(writer);
    vigil_report_begin(writer, "signal");
    vigil_report_u64(writer, (uint64_t)signal_number);
    vigil_report_i64(writer, info ? info->si_code : 0);
    vigil_report_hex(writer, info ? (uint64_t)(uintptr_t)info->si_addr : 0);
    vigil_report_i64(writer, info && info->si_code <= 0 ? info->si_pid : 0);
    vigil_report_end(writer);

    vigil_enter_section(VIGIL_CRASH_SECTION_METADATA);
    vigil_report_begin(writer, "meta");
    vigil_report_blob(writer, vigil_crash.metadata, vigil_crash.metadata_length);
    vigil_report_end(writer);

    vigil_enter_section(VIGIL_CRASH_SECTION_REGISTERS);
    vigil_write_registers(writer, ucontext);

    vigil_enter_section(VIGIL_CRASH_SECTION_CRASHED_THREAD);
    int map_error = vigil_memory_map_read(&vigil_crash.map, vigil_crash.scratch, VIGIL_SCRATCH_BYTES);
    vigil_report_begin(writer, "map");
    vigil_report_u64(writer, vigil_crash.map.count);
    vigil_report_u64(writer, vigil_crash.map.dropped);
    vigil_report_u64(writer, vigil_crash.map.malformed);
    vigil_report_u64(writer, (uint64_t)map_error);
    vigil_report_end(writer);
    vigil_crash_registers registers;
    uint32_t flags = 0;
    uint32_t count = 0;
    if (vigil_crash_registers_from_ucontext(ucontext, &registers)) {
        vigil_stack_bounds fallback = {0, 0};
        if (tid == vigil_crash.install_thread_tid) fallback = vigil_crash.install_thread_bounds;
        count = vigil_crash_unwind(map_error == 0 ? &vigil_crash.map : NULL, &registers, fallback, vigil_crash.frames,
                                   vigil_crash.max_frames, &flags);
    } else {
        flags = VIGIL_WALK_UNSUPPORTED;
    }
    char name[VIGIL_THREAD_NAME_MAX + 1];
    vigil_read_thread_name(tid, name);
    vigil_write_thread(writer, tid, 1, flags, VIGIL_REGISTERS_SIGNAL, vigil_crash.frames, count, name);
    vigil_crash.marks_ns[0] = vigil_monotonic_now_ns();

    vigil_enter_section(VIGIL_CRASH_SECTION_IMAGES);
    vigil_write_images(writer);
    vigil_crash.marks_ns[1] = vigil_monotonic_now_ns();

    vigil_enter_section(VIGIL_CRASH_SECTION_MESSAGE);
    vigil_write_swift_message(writer);
    vigil_write_exception(writer);

    vigil_enter_section(VIGIL_CRASH_SECTION_THREADS);
    vigil_write_other_threads(writer, tid);
    vigil_write_secondary_crashes(writer, tid);
    vigil_crash.marks_ns[2] = vigil_monotonic_now_ns();

    vigil_enter_section(VIGIL_CRASH_SECTION_FINISH);
    vigil_crash.finalized = 1;
    atomic_signal_fence(memory_order_seq_cst);
    vigil_write_ending(writer);
    if (vigil_chain_possible(signal_number, info)) {
        vigil_chain(signal_number, info, ucontext, tid);
        return;
    }
    vigil_pass_on(signal_number, info);
}

// A crash inside the handler itself (or inside a handler it passed the signal to), on the thread
// that owns the first crash. The first report wins: end it with what it has, then die with the
// first crash's signal.
static void vigil_crash_nested(int signal_number, siginfo_t *info, void *ucontext) {
    if (atomic_load(&vigil_crash.stage) == VIGIL_CRASH_STAGE_WRITING && !vigil_crash.finalized) {
        vigil_crash.finalized = 1;
        atomic_signal_fence(memory_order_seq_cst);
        // Parked threads must not wait for a release that the interrupted code would have sent.
        atomic_store(&vigil_crash.park_release, atomic_load(&vigil_crash.park_generation));
        vigil_futex_wake(&vigil_crash.park_release, INT_MAX);
        vigil_report_writer *writer = &vigil_crash.writer;
        if (vigil_report_writer_recover(writer)) {
            vigil_crash_registers registers;
            memset(&registers, 0, sizeof registers);
            vigil_crash_registers_from_ucontext(ucontext, &registers);
            vigil_report_begin(writer, "fault");
            vigil_report_u64(writer, vigil_crash.section);
            vigil_report_u64(writer, (uint64_t)signal_number);
            vigil_report_i64(writer, info ? info->si_code : 0);
            vigil_report_hex(writer, info ? (uint64_t)(uintptr_t)info->si_addr : 0);
            vigil_report_hex(writer, registers.pc);
            vigil_report_end(writer);
            vigil_write_ending(writer);
        } else {
            atomic_store(&vigil_crash.stage, VIGIL_CRASH_STAGE_FAILED);
            vigil_futex_wake(&vigil_crash.stage, INT_MAX);
        }
    }
    int original = vigil_crash.crash_signal;
    vigil_die_with(original != 0 ? original : signal_number);
}

// A crash on another thread while the first is being handled: noted for the first report, then
// this thread waits for the process to die (bounded), and passes its own signal on if it did not.
// While the first fault is with the earlier handler, this thread asks where its thread is: once
// it has left the handler, that fault was recovered, and this one takes the report over; when
// the earlier handler returns, the crash is free again and this one takes it.
static void vigil_crash_secondary(int signal_number, siginfo_t *info, void *ucontext, int32_t tid) {
    int recorded = 0;
    uint64_t deadline = vigil_monotonic_now_ns() + VIGIL_SECONDARY_WAIT_NS;
    while (1) {
        uint64_t owner = atomic_load(&vigil_crash.owner);
        if (owner == 0) {
            if (atomic_compare_exchange_strong(&vigil_crash.owner, &owner, (uint64_t)(uint32_t)tid)) {
                vigil_crash_primary(signal_number, info, ucontext, tid);
                return;
            }
            continue;
        }
        uint32_t stage = atomic_load(&vigil_crash.stage);
        if ((owner & VIGIL_OWNER_CHAINED) != 0) {
            if (vigil_chain_locate(vigil_owner_tid(owner)) == VIGIL_CHAIN_LEFT) {
                if (atomic_compare_exchange_strong(&vigil_crash.owner, &owner, (uint64_t)(uint32_t)tid)) {
                    vigil_retract((uint64_t)(uint32_t)tid);
                    vigil_crash_primary(signal_number, info, ucontext, tid);
                    return;
                }
                continue;
            }
        } else if (!recorded && stage == VIGIL_CRASH_STAGE_WRITING) {
            recorded = 1;
            uint32_t index = atomic_fetch_add(&vigil_crash.secondary_count, 1);
            if (index < VIGIL_SECONDARY_MAX) {
                vigil_secondary_crash *crash = &vigil_crash.secondary[index];
                crash->tid = tid;
                crash->signal_number = signal_number;
                crash->code = info ? info->si_code : 0;
                crash->fault_address = info ? (uintptr_t)info->si_addr : 0;
                if (!vigil_crash_registers_from_ucontext(ucontext, &crash->registers)) memset(&crash->registers, 0, sizeof crash->registers);
                atomic_store(&crash->ready, 1);
            }
        }
        uint64_t now = vigil_monotonic_now_ns();
        if (now >= deadline) break;
        if ((owner & VIGIL_OWNER_CHAINED) != 0) {
            // The earlier handler is deciding (or this thread could not tell): ask again soon.
            vigil_sleep_ms(5);
        } else if (stage == VIGIL_CRASH_STAGE_WRITING) {
            uint64_t slice = deadline - now < 50000000ull ? deadline - now : 50000000ull;
            vigil_futex_wait(&vigil_crash.stage, stage, slice);
        } else {
            // The report is done and the first thread is passing its signal on (to the earlier
            // handler, or to the default action), which may end the process; wait for that
            // rather than racing it with this thread's signal.
            vigil_sleep_ms(20);
        }
    }
    vigil_pass_on(signal_number, info);
}

// This thread faults again while its earlier fault is with the earlier handler. If it is still
// inside that handler, the handler itself faulted: the earlier report stands and the signal goes
// on as it would have without Vigil. If it left the handler (a long jump), the earlier fault was
// recovered and this one is a new one.
static void vigil_crash_reentered(int signal_number, siginfo_t *info, void *ucontext, int32_t tid, uint64_t owner) {
    vigil_crash_registers registers;
    if (vigil_crash_registers_from_ucontext(ucontext, &registers) && !vigil_chain_holds(registers.sp)) {
        if (atomic_compare_exchange_strong(&vigil_crash.owner, &owner, (uint64_t)(uint32_t)tid)) {
            vigil_retract((uint64_t)(uint32_t)tid);
            vigil_crash_primary(signal_number, info, ucontext, tid);
        } else {
            vigil_crash_secondary(signal_number, info, ucontext, tid);
        }
        return;
    }
    vigil_pass_on(signal_number, info);
}

static void vigil_crash_handle_signal(int signal_number, siginfo_t *info, void *ucontext) {
    int saved_errno = errno;
    // A forked child inherits the handler and the report file's descriptor: it must not write
    // into its parent's report.
    if (!atomic_load(&vigil_crash.armed) || getpid() != vigil_crash.pid) {
        vigil_pass_on(signal_number, info);
        errno = saved_errno;
        return;
    }
    int32_t tid = vigil_gettid();
    uint64_t expected = 0;
    if (atomic_compare_exchange_strong(&vigil_crash.owner, &expected, (uint64_t)(uint32_t)tid)) {
        vigil_crash_primary(signal_number, info, ucontext, tid);
    } else if (vigil_owner_tid(expected) == tid && (expected & VIGIL_OWNER_CHAINED) != 0) {
        vigil_crash_reentered(signal_number, info, ucontext, tid, expected);
    } else if (vigil_owner_tid(expected) == tid) {
        vigil_crash_nested(signal_number, info, ucontext);
    } else {
        vigil_crash_secondary(signal_number, info, ucontext, tid);
    }
    errno = saved_errno;
}

// MARK: - Install (not async-signal-safe)

static void *vigil_map_pages(size_t bytes) {
    void *pages = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return pages == MAP_FAILED ? NULL : pages;
}

static int vigil_install_alternate_stack(uint32_t bytes) {
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0 && current.ss_size >= 16 * 1024) {
        return 0;
    }
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    size_t size = ((size_t)bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    // One guard page below: an overflow of the signal stack itself faults instead of writing
    // over whatever lies below it.
    uint8_t *pages = vigil_map_pages(size + (size_t)page);
    if (pages == NULL) return ENOMEM;
    mprotect(pages, (size_t)page, PROT_NONE);
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_sp = pages + page;
    stack.ss_size = size;
    if (sigaltstack(&stack, NULL) != 0) {
        int error = errno;
        munmap(pages, size + (size_t)page);
        return error;
    }
    return 0;
}

// A thread inherits its creator's signal mask, and a process its parent's: a process started
// from a libdispatch worker (which blocks every asynchronous signal) would have the park signal,
// and even SIGABRT, blocked on its main thread and on every thread that thread creates. A
// blocked fault signal bypasses every handler, and a blocked park signal leaves only /proc.
static void vigil_unblock_crash_signals_on_current_thread(void) {
    sigset_t set;
    sigemptyset(&set);
    for (int index = 0; index < VIGIL_CRASH_SIGNAL_COUNT; index++) sigaddset(&set, vigil_crash_signal_numbers[index]);
    if (vigil_crash.park_signal != 0) sigaddset(&set, vigil_crash.park_signal);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static int vigil_pick_park_signal(void) {
    int sampler = vigil_sampler_signal_number();
    for (int candidate = SIGRTMAX - 1; candidate > SIGRTMIN; candidate--) {
        if (candidate == sampler) continue;
        struct sigaction current;
        if (sigaction(candidate, NULL, &current) != 0) continue;
        if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = vigil_park_handle_signal;
        action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(candidate, &action, NULL) == 0) return candidate;
    }
    return 0;
}

static int vigil_crash_initialize(const vigil_crash_config *config) {
    uint32_t max_frames = config->max_frames ? config->max_frames : 512;
    if (max_frames > 4096) max_frames = 4096;
    uint32_t max_other = config->max_frames_other_threads ? config->max_frames_other_threads : 128;
    if (max_other > max_frames) max_other = max_frames;
    uint32_t max_threads = config->max_threads ? config->max_threads : 64;
    if (max_threads > 1024) max_threads = 1024;
    uint32_t image_capacity = config->image_capacity ? config->image_capacity : 1024;
    if (image_capacity > 16384) image_capacity = 16384;

    vigil_crash.write_buffer = vigil_map_pages(VIGIL_WRITE_BUFFER_BYTES);
    vigil_crash.metadata = vigil_map_pages(VIGIL_CRASH_METADATA_CAPACITY);
    vigil_crash.frames = vigil_map_pages((size_t)max_frames * sizeof(uintptr_t));
    vigil_crash.map.mappings = vigil_map_pages((size_t)VIGIL_MAPPINGS_MAX * sizeof(vigil_mapping));
    vigil_crash.scratch = vigil_map_pages(VIGIL_SCRATCH_BYTES);
    vigil_crash.slots = vigil_map_pages((size_t)max_threads * sizeof(vigil_park_slot));
    vigil_crash.threads = vigil_map_pages((size_t)(max_threads + 1) * sizeof(vigil_thread_entry));
    vigil_crash.image_storage[0] = vigil_map_pages((size_t)image_capacity * sizeof(vigil_image));
    vigil_crash.image_storage[1] = vigil_map_pages((size_t)image_capacity * sizeof(vigil_image));
    if (!vigil_crash.write_buffer || !vigil_crash.metadata || !vigil_crash.frames || !vigil_crash.map.mappings ||
        !vigil_crash.scratch || !vigil_crash.slots || !vigil_crash.threads || !vigil_crash.image_storage[0] ||
        !vigil_crash.image_storage[1]) {
        return ENOMEM;  // The pages mapped so far stay mapped: a failed install is rare and one-off.
    }
    // Touch the buffers every crash writes into, so the handler does not take its first page
    // faults on them (under memory pressure a fresh page may be slow to come).
    memset(vigil_crash.write_buffer, 0, VIGIL_WRITE_BUFFER_BYTES);
    memset(vigil_crash.frames, 0, (size_t)max_frames * sizeof(uintptr_t));
    vigil_crash.max_frames = max_frames;
    vigil_crash.max_frames_other = max_other;
    vigil_crash.max_threads = max_threads;
    vigil_crash.map.capacity = VIGIL_MAPPINGS_MAX;
    vigil_crash.image_capacity = image_capacity;
    for (int index = 0; index < 2; index++) {
        vigil_crash.images[index].images = vigil_crash.image_storage[index];
        vigil_crash.images[index].capacity = image_capacity;
    }
    vigil_crash.thread_timeout_ms = config->thread_timeout_ms ? config->thread_timeout_ms : 20;
    vigil_crash.alternate_stack_bytes = config->alternate_stack_bytes ? config->alternate_stack_bytes : 64 * 1024;
    if (vigil_crash.alternate_stack_bytes < 16 * 1024) vigil_crash.alternate_stack_bytes = 16 * 1024;
    vigil_crash.fd = -1;
    vigil_crash.pid = getpid();
    vigil_crash.install_thread_tid = vigil_gettid();
    if (vigil_thread_stack_bounds(pthread_self(), &vigil_crash.install_thread_bounds) != 0) {
        vigil_crash.install_thread_bounds.low = 0;
        vigil_crash.install_thread_bounds.high = 0;
    }
    // The Swift runtime keeps the last fatal error message behind this exported accessor on
    // platforms without CrashReporterClient (Linux among them): a pointer to an atomic pointer
    // to a heap string, set before the runtime traps.
    void *(*message_buffer)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "swift_getFatalErrorMessageBuffer");
    vigil_crash.swift_message_slot = message_buffer ? message_buffer() : NULL;
    vigil_crash_crc32(0, "", 0);
    vigil_crash.park_signal = vigil_pick_park_signal();
    // A fault recovered by a long jump right before a normal exit has nobody else to retract it.
    atexit(vigil_settle_chain);

    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = vigil_crash_handle_signal;
    // SA_NODEFER: a fault inside the handler (or inside the handler it passes the signal to)
    // must reach it again rather than kill the process with the report half written.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    vigil_crash.action = action;
    for (int index = 0; index < VIGIL_CRASH_SIGNAL_COUNT; index++) {
        if (sigaction(vigil_crash_signal_numbers[index], &action, &vigil_crash.previous[index]) != 0) {
            memset(&vigil_crash.previous[index], 0, sizeof vigil_crash.previous[index]);
            vigil_crash.previous[index].sa_handler = SIG_DFL;
        }
    }
    vigil_crash.initialized = 1;
    return 0;
}

int vigil_crash_install(const vigil_crash_config *config) {
    if (config == NULL || config->report_path == NULL || config->report_path[0] == '\0') return EINVAL;
    if (config->metadata_length > VIGIL_CRASH_METADATA_CAPACITY || strlen(config->report_path) >= PATH_MAX) return EINVAL;
    pthread_mutex_lock(&vigil_crash_install_lock);
    int status = 0;
    atomic_store(&vigil_crash.armed, 0);
    if (!vigil_crash.initialized) {
        status = vigil_crash_initialize(config);
        if (status != 0) goto done;
    } else {
        vigil_settle_chain();
        if (atomic_load(&vigil_crash.owner) != 0) {
            status = EBUSY;  // A crash is in progress on another thread.
            goto done;
        }
    }
    if (vigil_crash.fd >= 0) close(vigil_crash.fd);
    vigil_crash.fd = -1;
    int fd = open(config->report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        status = errno;
        atomic_store(&vigil_crash.stage, VIGIL_CRASH_STAGE_DISARMED);
        goto done;
    }
    // The lock tells the next launch that this file belongs to a live process; it goes away
    // with the process, crash or not.
    flock(fd, LOCK_EX | LOCK_NB);
    uint32_t reserve = config->reserve_bytes ? config->reserve_bytes : 512 * 1024;
    vigil_crash.reserve_bytes = reserve;
    vigil_crash.counters.reserved = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)reserve) == 0;
    vigil_crash.fd = fd;
    size_t path_length = strlen(config->report_path);
    memcpy(vigil_crash.report_path, config->report_path, path_length + 1);
    if (config->metadata_length > 0 && config->metadata != NULL) memcpy(vigil_crash.metadata, config->metadata, config->metadata_length);
    vigil_crash.metadata_length = config->metadata != NULL ? config->metadata_length : 0;
    vigil_crash.test_fault_section = config->test_fault_section;
    vigil_crash.test_stall_section = config->test_stall_section;
    vigil_crash.test_stall_ms = config->test_stall_ms;
    vigil_install_alternate_stack(vigil_crash.alternate_stack_bytes);
    vigil_unblock_crash_signals_on_current_thread();
    vigil_crash.counters.installs++;
    pthread_mutex_unlock(&vigil_crash_install_lock);
    vigil_crash_refresh_images(1);
    pthread_mutex_lock(&vigil_crash_install_lock);
    atomic_store(&vigil_crash.stage, VIGIL_CRASH_STAGE_ARMED);
    atomic_store(&vigil_crash.armed, 1);
done:
    pthread_mutex_unlock(&vigil_crash_install_lock);
    return status;
}

void vigil_crash_disarm(int remove_file) {
    pthread_mutex_lock(&vigil_crash_install_lock);
    vigil_settle_chain();
    if (vigil_crash.initialized && atomic_load(&vigil_crash.owner) == 0) {
        atomic_store(&vigil_crash.armed, 0);
        atomic_store(&vigil_crash.stage, VIGIL_CRASH_STAGE_DISARMED);
        if (vigil_crash.fd >= 0) {
            if (remove_file) unlink(vigil_crash.report_path);
            close(vigil_crash.fd);
            vigil_crash.fd = -1;
        }
    }
    pthread_mutex_unlock(&vigil_crash_install_lock);
}

int vigil_crash_refresh_images(int force) {
    pthread_mutex_lock(&vigil_crash_refresh_lock);
    int result = 0;
    if (!vigil_crash.initialized) {
        result = -1;
        goto done;
    }
    // The periodic refresh is also where a fault recovered by a long jump is noticed when no
    // later fault came (see vigil_chain).
    vigil_settle_chain();
    uint32_t current = atomic_load(&vigil_crash.published_images) & 1u;
    if (!force && vigil_crash.counters.installs > 0 && !vigil_images_changed(&vigil_crash.images[current])) goto done;
    // The handler reads the published buffer; this writes the other one. A handler that loaded
    // the now-unpublished buffer before the last publish set `owner` before that load, so the
    // check below (after that publish) sees it and leaves the buffer alone.
    if (atomic_load(&vigil_crash.owner) != 0) {
        vigil_crash.counters.image_refreshes_skipped++;
        result = -1;
        goto done;
    }
    uint32_t next = current ^ 1u;
    if (vigil_images_snapshot(&vigil_crash.images[next]) != 0) {
        result = -1;
        goto done;
    }
    atomic_store(&vigil_crash.published_images, next);
    vigil_crash.counters.image_refreshes++;
    vigil_crash.counters.images_dropped = vigil_crash.images[next].dropped;
    result = 1;
done:
    pthread_mutex_unlock(&vigil_crash_refresh_lock);
    return result;
}

int vigil_crash_prepare_current_thread(void) {
    uint32_t bytes = vigil_crash.alternate_stack_bytes ? vigil_crash.alternate_stack_bytes : 64 * 1024;
    if (vigil_crash.initialized) vigil_unblock_crash_signals_on_current_thread();
    return vigil_install_alternate_stack(bytes);
}

void vigil_crash_set_exception(const char *type, const char *reason) {
    atomic_store(&vigil_crash.exception_set, 0);
    size_t index = 0;
    for (; type != NULL && type[index] != '\0' && index + 1 < sizeof vigil_crash.exception_type; index++) {
        vigil_crash.exception_type[index] = type[index];
    }
    vigil_crash.exception_type[index] = '\0';
    for (index = 0; reason != NULL && reason[index] != '\0' && index + 1 < sizeof vigil_crash.exception_reason; index++) {
        vigil_crash.exception_reason[index] = reason[index];
    }
    vigil_crash.exception_reason[index] = '\0';
    atomic_store(&vigil_crash.exception_set, 1);
}

uint32_t vigil_crash_stage(void) { return atomic_load(&vigil_crash.stage); }

int vigil_crash_park_signal(void) { return vigil_crash.park_signal; }

void vigil_crash_get_counters(vigil_crash_counters *counters) {
    if (counters != NULL) *counters = vigil_crash.counters;
}

#else  // Not Linux: the Darwin sibling is vigil_crash_mach.c.

int vigil_crash_install(const vigil_crash_config *config) {
    (void)config;
    return ENOTSUP;
}

void vigil_crash_disarm(int remove_file) { (void)remove_file; }

int vigil_crash_refresh_images(int force) {
    (void)force;
    return -1;
}

int vigil_crash_prepare_current_thread(void) { return ENOTSUP; }

uint32_t vigil_crash_stage(void) { return VIGIL_CRASH_STAGE_NOT_INSTALLED; }

int vigil_crash_park_signal(void) { return 0; }

void vigil_crash_get_counters(vigil_crash_counters *counters) {
    if (counters != NULL) memset(counters, 0, sizeof *counters);
}

#endif
