// The crash handler's Apple-platform sibling. See include/vigil_crash_darwin.h.
//
// Empty on Linux (this whole file is behind __APPLE__); written against the documented Mach,
// pthread and dyld APIs, mirroring vigil_crash_handler.c. Type-checked against the iOS 17 /
// macOS 14 SDKs; its behaviour is unverified until it runs on an Apple platform.
#include "vigil_crash_darwin.h"

#include <errno.h>
#include <string.h>

#if defined(__APPLE__)

#include <fcntl.h>
#include <mach/exc.h>
#include <mach/mach.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/sysctl.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

#include "vigil_crash_report_writer.h"
#include "vigil_crash_unwind.h"
#include "vigil_darwin_thread.h"
#include "vigil_stack_walk.h"

#define VIGIL_MACH_WRITE_BUFFER_BYTES (128u * 1024u)
// EXC_GUARD is left out on purpose: fatal guard violations are not delivered to task exception
// ports outside developer mode, and the non-fatal ones that are would look like crashes of a
// process that goes on running (docs/crash.md). MetricKit reports the fatal ones.
#define VIGIL_MACH_EXCEPTION_MASK \
    (EXC_MASK_BAD_ACCESS | EXC_MASK_BAD_INSTRUCTION | EXC_MASK_ARITHMETIC | EXC_MASK_SOFTWARE | EXC_MASK_BREAKPOINT)
#define VIGIL_MACH_SAVED_PORTS EXC_TYPES_COUNT
// `mach_exception_raise` (mach_exc.defs), the message EXCEPTION_DEFAULT | MACH_EXCEPTION_CODES
// sends; its reply is 100 higher, as for every MIG routine.
#define VIGIL_MACH_EXCEPTION_RAISE_ID 2405
#define VIGIL_EXCEPTION_STACK_CAPACITY 512

// The request the kernel sends for EXCEPTION_DEFAULT | MACH_EXCEPTION_CODES. MIG lays its
// messages out with 4-byte packing: the 64-bit codes start at byte 68, not at the natural 72.
#pragma pack(push, 4)
typedef struct {
    mach_msg_header_t header;
    mach_msg_body_t body;
    mach_msg_port_descriptor_t thread;
    mach_msg_port_descriptor_t task;
    NDR_record_t ndr;
    exception_type_t exception;
    mach_msg_type_number_t code_count;
    int64_t code[2];
} vigil_exception_request;

typedef struct {
    mach_msg_header_t header;
    NDR_record_t ndr;
    kern_return_t result;
} vigil_exception_reply;
#pragma pack(pop)

// The wire layout, checked against the SDK's own MIG type for the same message with 32-bit codes
// (`__Request__exception_raise_t`, identical up to the codes) and against the byte offsets.
_Static_assert(offsetof(vigil_exception_request, thread) == 28, "thread port descriptor at byte 28");
_Static_assert(offsetof(vigil_exception_request, task) == 40, "task port descriptor at byte 40");
_Static_assert(offsetof(vigil_exception_request, ndr) == 52, "NDR record at byte 52");
_Static_assert(offsetof(vigil_exception_request, exception) == 60, "exception type at byte 60");
_Static_assert(offsetof(vigil_exception_request, code_count) == 64, "code count at byte 64");
_Static_assert(offsetof(vigil_exception_request, code) == 68, "64-bit codes at byte 68 (4-byte packing)");
_Static_assert(sizeof(vigil_exception_request) == 84, "84 bytes before the trailer");
_Static_assert(offsetof(vigil_exception_request, exception) == offsetof(__Request__exception_raise_t, exception),
               "same layout as the SDK's MIG request");
_Static_assert(offsetof(vigil_exception_request, code_count) == offsetof(__Request__exception_raise_t, codeCnt),
               "same layout as the SDK's MIG request");
_Static_assert(offsetof(vigil_exception_request, code) == offsetof(__Request__exception_raise_t, code),
               "same layout as the SDK's MIG request");
_Static_assert(offsetof(vigil_exception_reply, result) == offsetof(__Reply__exception_raise_t, RetCode),
               "same layout as the SDK's MIG reply");
_Static_assert(sizeof(vigil_exception_reply) == 36, "36-byte reply");

// The receive buffer: the request, the largest trailer the kernel may append, and slack.
typedef union {
    vigil_exception_request request;
    uint8_t bytes[sizeof(vigil_exception_request) + MAX_TRAILER_SIZE + 64];
} vigil_exception_buffer;

static struct {
    int initialized;
    _Atomic uint32_t armed;
    _Atomic uint32_t stage;
    _Atomic uintptr_t owner;  // the crashing Mach thread (or handler thread), 0 when idle
    int fd;
    char path[1024];
    uint8_t *write_buffer;
    uint8_t *metadata;
    uint32_t metadata_length;
    uintptr_t *frames;
    uint32_t max_frames;
    uint32_t max_frames_other;
    vigil_image *image_storage[2];
    uint32_t image_counts[2];
    uint32_t image_capacity;
    _Atomic uint32_t published_images;
    mach_port_t exception_port;
    pthread_t server;
    // 1 while Vigil's port is the task's exception port; 0 before install, under a debugger,
    // and once an exception restored the previous ports.
    _Atomic uint32_t port_active;
    _Atomic uint32_t skipped_for_debugger;
    // The ports that were installed before ours, restored before the exception goes on.
    mach_msg_type_number_t saved_count;
    exception_mask_t saved_masks[VIGIL_MACH_SAVED_PORTS];
    exception_handler_t saved_ports[VIGIL_MACH_SAVED_PORTS];
    exception_behavior_t saved_behaviors[VIGIL_MACH_SAVED_PORTS];
    thread_state_flavor_t saved_flavors[VIGIL_MACH_SAVED_PORTS];
    struct sigaction previous_abort;
    // The language-level exception (NSException, C++), set before the process aborts.
    char exception_type[256];
    char exception_reason[4096];
    _Atomic uint32_t exception_set;
    // The exception's throw site (NSException.callStackReturnAddresses), when recorded.
    uintptr_t exception_stack[VIGIL_EXCEPTION_STACK_CAPACITY];
    _Atomic uint32_t exception_stack_count;
    vigil_report_writer writer;
} vigil_mach;

static pthread_mutex_t vigil_mach_lock = PTHREAD_MUTEX_INITIALIZER;

void vigil_crash_set_exception(const char *type, const char *reason) {
    if (!vigil_mach.initialized) return;
    atomic_store(&vigil_mach.exception_set, 0);
    strlcpy(vigil_mach.exception_type, type ? type : "", sizeof vigil_mach.exception_type);
    strlcpy(vigil_mach.exception_reason, reason ? reason : "", sizeof vigil_mach.exception_reason);
    atomic_store(&vigil_mach.exception_set, 1);
}

void vigil_crash_set_exception_stack(const uintptr_t *addresses, uint32_t count) {
    if (!vigil_mach.initialized) return;
    atomic_store(&vigil_mach.exception_stack_count, 0);
    if (addresses == NULL) return;
    uint32_t kept = count < VIGIL_EXCEPTION_STACK_CAPACITY ? count : VIGIL_EXCEPTION_STACK_CAPACITY;
    for (uint32_t index = 0; index < kept; index++) {
        vigil_mach.exception_stack[index] = vigil_strip_return_address(addresses[index]);
    }
    atomic_store(&vigil_mach.exception_stack_count, kept);
}

static uint64_t vigil_mach_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

// The BSD signal the kernel raises for a Mach exception (what the process dies with).
static int vigil_mach_signal_for(exception_type_t exception, int64_t code) {
    switch (exception) {
    case EXC_BAD_ACCESS: return code == KERN_INVALID_ADDRESS ? SIGSEGV : SIGBUS;
    case EXC_BAD_INSTRUCTION: return SIGILL;
    case EXC_ARITHMETIC: return SIGFPE;
    case EXC_BREAKPOINT: return SIGTRAP;
    default: return SIGABRT;
    }
}

// `thread <id> <crashed> <flags> <source> <count> <frames…> <name blob>`, as on Linux. Only Mach
// traps: every other thread is suspended and may hold libpthread's list lock.
static void vigil_mach_write_thread(vigil_report_writer *writer, thread_t thread, const vigil_darwin_registers *known,
                                    int crashed, uint32_t max_frames) {
    vigil_darwin_registers registers = known != NULL ? *known : vigil_darwin_thread_registers(thread);
    uint32_t flags = 0;
    uint32_t count = vigil_darwin_walk_registers(&registers, vigil_darwin_stack_bounds(registers.sp), vigil_mach.frames,
                                                 max_frames, &flags);
    char name[64];
    vigil_darwin_thread_name(thread, name, sizeof name);
    vigil_report_begin(writer, "thread");
    // Keep the innermost frames that fit the buffer: a torn record would void the whole report
    // (128 bytes for the rest of the record, a 64-byte name included).
    uint32_t fit = vigil_report_hex_capacity(writer, 192);
    if (count > fit) {
        count = fit;
        flags |= VIGIL_WALK_TRUNCATED;
    }
    vigil_report_u64(writer, (uint64_t)thread);
    vigil_report_u64(writer, crashed ? 1 : 0);
    vigil_report_hex(writer, flags);
    vigil_report_u64(writer, crashed ? 0 : 1);
    vigil_report_u64(writer, count);
    for (uint32_t index = 0; index < count; index++) vigil_report_hex(writer, vigil_mach.frames[index]);
    vigil_report_blob(writer, name, (uint32_t)strnlen(name, sizeof name));
    vigil_report_end(writer);
}

// Writes the report for a crash of `crashed` (suspended by the kernel, or the calling thread for
// SIGABRT). Every other thread but the caller is suspended while it runs.
static void vigil_mach_capture(thread_t crashed, const vigil_darwin_registers *crashed_registers, exception_type_t exception,
                               int64_t code0, int64_t code1, int signal_number) {
    thread_act_array_t threads = NULL;
    mach_msg_type_number_t thread_count = 0;
    thread_t self = mach_thread_self();
    // task_threads allocates the list with vm_allocate (the kernel's pages, not malloc's heap).
    if (task_threads(mach_task_self(), &threads, &thread_count) != KERN_SUCCESS) thread_count = 0;
    for (mach_msg_type_number_t index = 0; index < thread_count; index++) {
        if (threads[index] != self) thread_suspend(threads[index]);
    }
    atomic_store(&vigil_mach.stage, VIGIL_CRASH_STAGE_WRITING);
    vigil_report_writer *writer = &vigil_mach.writer;
    vigil_report_writer_init(writer, vigil_mach.fd, vigil_mach.write_buffer, VIGIL_MACH_WRITE_BUFFER_BYTES);
    uint64_t entry = vigil_mach_now_ns();
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);

    vigil_report_begin(writer, "VIGILCRASH");
    vigil_report_u64(writer, VIGIL_CRASH_FORMAT_VERSION);
    vigil_report_word(writer, vigil_image_architecture());
    vigil_report_u64(writer, sizeof(uintptr_t));
    vigil_report_end(writer);
    vigil_report_begin(writer, "os");
    vigil_report_word(writer, "darwin");
    vigil_report_end(writer);
    vigil_report_begin(writer, "process");
    vigil_report_u64(writer, (uint64_t)getpid());
    vigil_report_u64(writer, (uint64_t)crashed);
    vigil_report_end(writer);
    vigil_report_begin(writer, "time");
    vigil_report_u64(writer, (uint64_t)wall.tv_sec);
    vigil_report_u64(writer, (uint64_t)wall.tv_nsec);
    vigil_report_u64(writer, entry);
    vigil_report_end(writer);
    vigil_report_begin(writer, "signal");
    vigil_report_u64(writer, (uint64_t)signal_number);
    vigil_report_i64(writer, exception == EXC_BAD_ACCESS ? 1 : 0);
    vigil_report_hex(writer, exception == EXC_BAD_ACCESS ? (uint64_t)code1 : 0);
    vigil_report_i64(writer, 0);
    vigil_report_end(writer);
    vigil_report_begin(writer, "mach");
    vigil_report_u64(writer, (uint64_t)exception);
    vigil_report_hex(writer, (uint64_t)code0);
    vigil_report_hex(writer, (uint64_t)code1);
    vigil_report_end(writer);
    vigil_report_begin(writer, "meta");
    vigil_report_blob(writer, vigil_mach.metadata, vigil_mach.metadata_length);
    vigil_report_end(writer);

    vigil_darwin_registers registers = crashed_registers != NULL ? *crashed_registers : vigil_darwin_thread_registers(crashed);
    const struct { const char *name; uintptr_t value; } named[] = {
        // pc and lr are code addresses: stripped of pointer authentication like every frame.
        {"pc", vigil_strip_return_address(registers.pc)}, {"fp", registers.fp}, {"sp", registers.sp},
        {"lr", vigil_strip_return_address(registers.lr)},
    };
    for (size_t index = 0; index < sizeof named / sizeof named[0]; index++) {
        vigil_report_begin(writer, "reg");
        vigil_report_word(writer, named[index].name);
        vigil_report_hex(writer, named[index].value);
        vigil_report_end(writer);
    }
    vigil_mach_write_thread(writer, crashed, &registers, 1, vigil_mach.max_frames);

    uint32_t published = atomic_load(&vigil_mach.published_images) & 1u;
    uint32_t count = vigil_mach.image_counts[published];
    vigil_report_begin(writer, "images");
    vigil_report_u64(writer, count);
    vigil_report_u64(writer, 0);
    vigil_report_u64(writer, 0);
    vigil_report_end(writer);
    for (uint32_t index = 0; index < count; index++) {
        const vigil_image *image = &vigil_mach.image_storage[published][index];
        vigil_report_begin(writer, "image");
        vigil_report_hex(writer, image->load_address);
        vigil_report_hex(writer, image->size);
        vigil_report_hex(writer, image->bias);
        vigil_report_hex(writer, image->lowest_vaddr);
        vigil_report_hex_bytes(writer, image->id, image->id_length);
        vigil_report_blob(writer, image->path, (uint32_t)strnlen(image->path, VIGIL_IMAGE_PATH_CAPACITY));
        vigil_report_end(writer);
    }
    if (atomic_load(&vigil_mach.exception_set)) {
        vigil_report_begin(writer, "exception");
        vigil_report_blob(writer, vigil_mach.exception_type, (uint32_t)strnlen(vigil_mach.exception_type, sizeof vigil_mach.exception_type));
        vigil_report_blob(writer, vigil_mach.exception_reason,
                          (uint32_t)strnlen(vigil_mach.exception_reason, sizeof vigil_mach.exception_reason));
        vigil_report_end(writer);
    }
    uint32_t stack_count = atomic_load(&vigil_mach.exception_stack_count);
    if (stack_count > 0) {
        // `exception-stack <count> <addresses…>`: the throw site, innermost first. Hex words
        // only, so a reader that predates the record skips the line.
        uint32_t fit = vigil_report_hex_capacity(writer, 64);
        if (stack_count > fit) stack_count = fit;
        vigil_report_begin(writer, "exception-stack");
        vigil_report_u64(writer, stack_count);
        for (uint32_t index = 0; index < stack_count; index++) vigil_report_hex(writer, vigil_mach.exception_stack[index]);
        vigil_report_end(writer);
    }
    uint32_t others = 0;
    for (mach_msg_type_number_t index = 0; index < thread_count; index++) {
        if (threads[index] == crashed || threads[index] == self) continue;
        vigil_mach_write_thread(writer, threads[index], NULL, 0, vigil_mach.max_frames_other);
        others++;
    }
    vigil_report_begin(writer, "threads");
    vigil_report_u64(writer, others);
    vigil_report_u64(writer, others);
    for (int zero = 0; zero < 5; zero++) vigil_report_u64(writer, 0);
    vigil_report_end(writer);
    vigil_report_begin(writer, "timing");
    vigil_report_u64(writer, entry);
    for (int repeat = 0; repeat < 3; repeat++) vigil_report_u64(writer, vigil_mach_now_ns());
    vigil_report_u64(writer, vigil_mach_now_ns());
    vigil_report_end(writer);
    int error = vigil_report_finish(writer);
    atomic_store(&vigil_mach.stage, error == 0 ? VIGIL_CRASH_STAGE_WRITTEN : VIGIL_CRASH_STAGE_FAILED);

    for (mach_msg_type_number_t index = 0; index < thread_count; index++) {
        if (threads[index] != self) thread_resume(threads[index]);
        mach_port_deallocate(mach_task_self(), threads[index]);
    }
    if (threads != NULL) vm_deallocate(mach_task_self(), (vm_address_t)threads, thread_count * sizeof(thread_t));
    mach_port_deallocate(mach_task_self(), self);
}

static void vigil_mach_restore_previous_ports(void) {
    atomic_store(&vigil_mach.port_active, 0);
    for (mach_msg_type_number_t index = 0; index < vigil_mach.saved_count; index++) {
        if (vigil_mach.saved_masks[index] == 0) continue;
        task_set_exception_ports(mach_task_self(), vigil_mach.saved_masks[index], vigil_mach.saved_ports[index],
                                 vigil_mach.saved_behaviors[index], vigil_mach.saved_flavors[index]);
    }
}

// Whether a restored port takes `exception` and the faulting instruction raises it again when
// re-run. Then the reply is KERN_SUCCESS: the thread re-runs the instruction, faults again, and
// the kernel delivers the new exception to that port (KSCrash's way of chaining). Otherwise
// KERN_FAILURE: the kernel goes on to the host-level handler and the BSD signal.
static int vigil_mach_forwards(exception_type_t exception) {
    switch (exception) {
    case EXC_BAD_ACCESS:
    case EXC_BAD_INSTRUCTION:
    case EXC_ARITHMETIC:
    case EXC_BREAKPOINT:
        break;
    default:
        return 0;
    }
    exception_mask_t mask = (exception_mask_t)1 << exception;
    for (mach_msg_type_number_t index = 0; index < vigil_mach.saved_count; index++) {
        if (MACH_PORT_VALID(vigil_mach.saved_ports[index]) && (vigil_mach.saved_masks[index] & mask) != 0) return 1;
    }
    return 0;
}

static void vigil_mach_reply(const mach_msg_header_t *request, kern_return_t result) {
    if (!MACH_PORT_VALID(request->msgh_remote_port)) return;
    vigil_exception_reply reply;
    memset(&reply, 0, sizeof reply);
    reply.header.msgh_bits = MACH_MSGH_BITS(MACH_MSGH_BITS_REMOTE(request->msgh_bits), 0);
    reply.header.msgh_remote_port = request->msgh_remote_port;
    reply.header.msgh_size = sizeof reply;
    reply.header.msgh_id = request->msgh_id + 100;
    reply.ndr = NDR_record;
    reply.result = result;
    mach_msg(&reply.header, MACH_SEND_MSG, sizeof reply, 0, MACH_PORT_NULL, MACH_MSG_TIMEOUT_NONE, MACH_PORT_NULL);
}

// The exception server: one thread, blocked in mach_msg until the kernel reports an exception.
// It runs on its own stack, so a stack overflow of the crashed thread is reported too.
static void *vigil_mach_server(void *unused) {
    (void)unused;
    pthread_setname_np("vigil.crash.mach");
    static vigil_exception_buffer buffer;
    while (1) {
        memset(&buffer, 0, sizeof buffer);
        // No MACH_RCV_LARGE: a message too large for the buffer is destroyed (its sender sees
        // the reply port die) instead of staying queued and failing every receive after it.
        kern_return_t status = mach_msg(&buffer.request.header, MACH_RCV_MSG, 0, sizeof buffer, vigil_mach.exception_port,
                                        MACH_MSG_TIMEOUT_NONE, MACH_PORT_NULL);
        if (status == MACH_RCV_INVALID_NAME || status == MACH_RCV_PORT_DIED || status == MACH_RCV_PORT_CHANGED) break;
        if (status != KERN_SUCCESS) continue;
        const vigil_exception_request *request = &buffer.request;
        if (request->header.msgh_id != VIGIL_MACH_EXCEPTION_RAISE_ID ||
            request->header.msgh_size < sizeof(vigil_exception_request) || request->code_count > 2) {
            vigil_mach_reply(&request->header, KERN_FAILURE);
            continue;
        }
        // The previous ports come back first: a fault inside this handler then goes to them, not
        // to this thread, which is busy and would never answer.
        vigil_mach_restore_previous_ports();
        thread_t crashed = request->thread.name;
        int64_t code0 = request->code_count > 0 ? request->code[0] : 0;
        int64_t code1 = request->code_count > 1 ? request->code[1] : 0;
        uintptr_t expected = 0;
        if (atomic_load(&vigil_mach.armed) &&
            atomic_compare_exchange_strong(&vigil_mach.owner, &expected, (uintptr_t)crashed)) {
            int signal_number = vigil_mach_signal_for(request->exception, code0);
            vigil_mach_capture(crashed, NULL, request->exception, code0, code1, signal_number);
        }
        // The exception goes on: to the previous task-level handler (a re-fault), else to the
        // host level and the BSD signal, and the process dies as it would have without Vigil.
        vigil_mach_reply(&request->header, vigil_mach_forwards(request->exception) ? KERN_SUCCESS : KERN_FAILURE);
        mach_port_deallocate(mach_task_self(), request->thread.name);
        mach_port_deallocate(mach_task_self(), request->task.name);
    }
    return NULL;
}

// abort() raises SIGABRT without a Mach exception a task port receives: capture it here, with
// the registers the signal interrupted (`pthread_kill` in `abort`), not this handler's own.
static void vigil_mach_handle_abort(int signal_number, siginfo_t *info, void *context) {
    (void)info;
    int saved_errno = errno;
    uintptr_t expected = 0;
    thread_t self = mach_thread_self();
    if (atomic_load(&vigil_mach.armed) && atomic_compare_exchange_strong(&vigil_mach.owner, &expected, (uintptr_t)self)) {
        vigil_darwin_registers registers = vigil_darwin_ucontext_registers(context);
        vigil_mach_capture(self, registers.ok ? &registers : NULL, EXC_CRASH, 0, 0, signal_number);
    }
    mach_port_deallocate(mach_task_self(), self);
    sigaction(SIGABRT, &vigil_mach.previous_abort, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGABRT);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(SIGABRT);
    errno = saved_errno;
}

// Whether a debugger is attached (P_TRACED). A task exception port would take every breakpoint
// and single step from debugserver, so the Mach handler stays off then (KSCrash marks its Mach
// monitor "debugger unsafe" for the same reason).
static int vigil_mach_is_traced(void) {
    struct kinfo_proc info;
    memset(&info, 0, sizeof info);
    size_t size = sizeof info;
    int name[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, getpid()};
    if (sysctl(name, 4, &info, &size, NULL, 0) != 0) return 0;
    return (info.kp_proc.p_flag & P_TRACED) != 0;
}

static void *vigil_mach_pages(size_t bytes) {
    void *pages = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    return pages == MAP_FAILED ? NULL : pages;
}

static int vigil_mach_initialize(const vigil_crash_config *config) {
    vigil_mach.max_frames = config->max_frames ? config->max_frames : 512;
    vigil_mach.max_frames_other = config->max_frames_other_threads ? config->max_frames_other_threads : 128;
    if (vigil_mach.max_frames_other > vigil_mach.max_frames) vigil_mach.max_frames_other = vigil_mach.max_frames;
    vigil_mach.image_capacity = config->image_capacity ? config->image_capacity : 1024;
    vigil_mach.write_buffer = vigil_mach_pages(VIGIL_MACH_WRITE_BUFFER_BYTES);
    vigil_mach.metadata = vigil_mach_pages(VIGIL_CRASH_METADATA_CAPACITY);
    vigil_mach.frames = vigil_mach_pages((size_t)vigil_mach.max_frames * sizeof(uintptr_t));
    vigil_mach.image_storage[0] = vigil_mach_pages((size_t)vigil_mach.image_capacity * sizeof(vigil_image));
    vigil_mach.image_storage[1] = vigil_mach_pages((size_t)vigil_mach.image_capacity * sizeof(vigil_image));
    if (!vigil_mach.write_buffer || !vigil_mach.metadata || !vigil_mach.frames || !vigil_mach.image_storage[0] ||
        !vigil_mach.image_storage[1]) {
        return ENOMEM;
    }
    vigil_crash_crc32(0, "", 0);
    if (vigil_mach_is_traced()) {
        atomic_store(&vigil_mach.skipped_for_debugger, 1);
    } else {
        mach_port_t port = MACH_PORT_NULL;
        if (mach_port_allocate(mach_task_self(), MACH_PORT_RIGHT_RECEIVE, &port) != KERN_SUCCESS) return ENOMEM;
        if (mach_port_insert_right(mach_task_self(), port, port, MACH_MSG_TYPE_MAKE_SEND) != KERN_SUCCESS) {
            mach_port_mod_refs(mach_task_self(), port, MACH_PORT_RIGHT_RECEIVE, -1);
            return ENOMEM;
        }
        vigil_mach.exception_port = port;
        // The server thread exists before the port is the task's: an exception right after the
        // swap must find someone receiving.
        if (pthread_create(&vigil_mach.server, NULL, vigil_mach_server, NULL) != 0) {
            mach_port_mod_refs(mach_task_self(), port, MACH_PORT_RIGHT_RECEIVE, -1);
            mach_port_deallocate(mach_task_self(), port);
            vigil_mach.exception_port = MACH_PORT_NULL;
            return EAGAIN;
        }
        pthread_detach(vigil_mach.server);
        vigil_mach.saved_count = VIGIL_MACH_SAVED_PORTS;
        if (task_swap_exception_ports(mach_task_self(), VIGIL_MACH_EXCEPTION_MASK, port,
                                      (exception_behavior_t)(EXCEPTION_DEFAULT | MACH_EXCEPTION_CODES), THREAD_STATE_NONE,
                                      vigil_mach.saved_masks, &vigil_mach.saved_count, vigil_mach.saved_ports,
                                      vigil_mach.saved_behaviors, vigil_mach.saved_flavors) != KERN_SUCCESS) {
            vigil_mach.saved_count = 0;
            // Destroying the receive right ends the server's receive loop.
            mach_port_mod_refs(mach_task_self(), port, MACH_PORT_RIGHT_RECEIVE, -1);
            mach_port_deallocate(mach_task_self(), port);
            vigil_mach.exception_port = MACH_PORT_NULL;
            return EPERM;
        }
        atomic_store(&vigil_mach.port_active, 1);
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = vigil_mach_handle_abort;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGABRT, &action, &vigil_mach.previous_abort);
    vigil_mach.initialized = 1;
    return 0;
}

int vigil_crash_mach_install(const vigil_crash_config *config, const vigil_image *images, uint32_t count) {
    if (config == NULL || config->report_path == NULL || config->metadata_length > VIGIL_CRASH_METADATA_CAPACITY) return EINVAL;
    if (strlen(config->report_path) >= sizeof vigil_mach.path) return EINVAL;
    pthread_mutex_lock(&vigil_mach_lock);
    int status = 0;
    atomic_store(&vigil_mach.armed, 0);
    if (!vigil_mach.initialized) {
        vigil_mach.fd = -1;
        status = vigil_mach_initialize(config);
        if (status != 0) goto done;
    }
    if (vigil_mach.fd >= 0) close(vigil_mach.fd);
    vigil_mach.fd = open(config->report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (vigil_mach.fd < 0) {
        status = errno;
        goto done;
    }
    flock(vigil_mach.fd, LOCK_EX | LOCK_NB);
    // F_PREALLOCATE is the Apple counterpart of Linux's fallocate reservation.
    fstore_t reservation = {F_ALLOCATEALL, F_PEOFPOSMODE, 0, config->reserve_bytes ? config->reserve_bytes : 512 * 1024, 0};
    fcntl(vigil_mach.fd, F_PREALLOCATE, &reservation);
    strlcpy(vigil_mach.path, config->report_path, sizeof vigil_mach.path);
    if (config->metadata != NULL) memcpy(vigil_mach.metadata, config->metadata, config->metadata_length);
    vigil_mach.metadata_length = config->metadata != NULL ? config->metadata_length : 0;
    pthread_mutex_unlock(&vigil_mach_lock);
    vigil_crash_mach_publish_images(images, count);
    pthread_mutex_lock(&vigil_mach_lock);
    atomic_store(&vigil_mach.stage, VIGIL_CRASH_STAGE_ARMED);
    atomic_store(&vigil_mach.armed, 1);
done:
    pthread_mutex_unlock(&vigil_mach_lock);
    return status;
}

void vigil_crash_mach_publish_images(const vigil_image *images, uint32_t count) {
    pthread_mutex_lock(&vigil_mach_lock);
    // Same two-buffer protocol as Linux: never write the published buffer, and not at all once a
    // crash is in progress (its handler may still read the other one).
    if (vigil_mach.initialized && atomic_load(&vigil_mach.owner) == 0 && images != NULL) {
        uint32_t next = (atomic_load(&vigil_mach.published_images) & 1u) ^ 1u;
        uint32_t kept = count < vigil_mach.image_capacity ? count : vigil_mach.image_capacity;
        memcpy(vigil_mach.image_storage[next], images, (size_t)kept * sizeof(vigil_image));
        vigil_mach.image_counts[next] = kept;
        atomic_store(&vigil_mach.published_images, next);
    }
    pthread_mutex_unlock(&vigil_mach_lock);
}

void vigil_crash_mach_disarm(int remove_file) {
    pthread_mutex_lock(&vigil_mach_lock);
    if (vigil_mach.initialized && atomic_load(&vigil_mach.owner) == 0) {
        atomic_store(&vigil_mach.armed, 0);
        atomic_store(&vigil_mach.stage, VIGIL_CRASH_STAGE_DISARMED);
        if (vigil_mach.fd >= 0) {
            if (remove_file) unlink(vigil_mach.path);
            close(vigil_mach.fd);
            vigil_mach.fd = -1;
        }
    }
    pthread_mutex_unlock(&vigil_mach_lock);
}

uint32_t vigil_crash_mach_stage(void) { return atomic_load(&vigil_mach.stage); }

uint32_t vigil_crash_mach_port_state(void) {
    if (atomic_load(&vigil_mach.skipped_for_debugger)) return VIGIL_MACH_PORT_DEBUGGER;
    return atomic_load(&vigil_mach.port_active) ? VIGIL_MACH_PORT_ACTIVE : VIGIL_MACH_PORT_INACTIVE;
}

#else  // Not an Apple platform: the Mach sibling does not exist.

uint32_t vigil_crash_mach_stage(void) { return VIGIL_CRASH_STAGE_NOT_INSTALLED; }

uint32_t vigil_crash_mach_port_state(void) { return VIGIL_MACH_PORT_INACTIVE; }

void vigil_crash_set_exception_stack(const uintptr_t *addresses, uint32_t count) {
    (void)addresses;
    (void)count;
}

int vigil_crash_mach_install(const vigil_crash_config *config, const vigil_image *images, uint32_t count) {
    (void)config;
    (void)images;
    (void)count;
    return ENOTSUP;
}

void vigil_crash_mach_publish_images(const vigil_image *images, uint32_t count) {
    (void)images;
    (void)count;
}

void vigil_crash_mach_disarm(int remove_file) { (void)remove_file; }

#if !defined(__linux__)
void vigil_crash_set_exception(const char *type, const char *reason) {
    (void)type;
    (void)reason;
}
#endif

#endif
