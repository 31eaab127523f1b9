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
#include <mach/mach.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

#include "vigil_crash_report_writer.h"
#include "vigil_stack_walk.h"

#define VIGIL_MACH_WRITE_BUFFER_BYTES (128u * 1024u)
#define VIGIL_MACH_EXCEPTION_MASK \
    (EXC_MASK_BAD_ACCESS | EXC_MASK_BAD_INSTRUCTION | EXC_MASK_ARITHMETIC | EXC_MASK_SOFTWARE | EXC_MASK_BREAKPOINT)
#define VIGIL_MACH_SAVED_PORTS 16

// The request the kernel sends for EXCEPTION_DEFAULT | MACH_EXCEPTION_CODES (mach_exc.defs).
typedef struct {
    mach_msg_header_t header;
    mach_msg_body_t body;
    mach_msg_port_descriptor_t thread;
    mach_msg_port_descriptor_t task;
    NDR_record_t ndr;
    exception_type_t exception;
    mach_msg_type_number_t code_count;
    int64_t code[2];
    mach_msg_trailer_t trailer;
} vigil_exception_request;

typedef struct {
    mach_msg_header_t header;
    NDR_record_t ndr;
    kern_return_t result;
} vigil_exception_reply;

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

typedef struct {
    uintptr_t pc, fp, sp, lr;
    int ok;
} vigil_mach_registers;

static vigil_mach_registers vigil_mach_thread_registers(thread_t thread) {
    vigil_mach_registers registers = {0, 0, 0, 0, 0};
#if defined(__arm64__)
    arm_thread_state64_t state;
    mach_msg_type_number_t count = ARM_THREAD_STATE64_COUNT;
    if (thread_get_state(thread, ARM_THREAD_STATE64, (thread_state_t)&state, &count) == KERN_SUCCESS) {
        registers.pc = (uintptr_t)arm_thread_state64_get_pc(state);
        registers.fp = (uintptr_t)arm_thread_state64_get_fp(state);
        registers.sp = (uintptr_t)arm_thread_state64_get_sp(state);
        registers.lr = (uintptr_t)arm_thread_state64_get_lr(state);
        registers.ok = 1;
    }
#elif defined(__x86_64__)
    x86_thread_state64_t state;
    mach_msg_type_number_t count = x86_THREAD_STATE64_COUNT;
    if (thread_get_state(thread, x86_THREAD_STATE64, (thread_state_t)&state, &count) == KERN_SUCCESS) {
        registers.pc = (uintptr_t)state.__rip;
        registers.fp = (uintptr_t)state.__rbp;
        registers.sp = (uintptr_t)state.__rsp;
        registers.ok = 1;
    }
#endif
    return registers;
}

static vigil_stack_bounds vigil_mach_stack_bounds(thread_t thread) {
    vigil_stack_bounds bounds = {0, 0};
    // pthread_from_mach_thread_np and the stack accessors read the thread's pthread structure;
    // the thread is suspended, and they take no lock.
    pthread_t pthread = pthread_from_mach_thread_np(thread);
    if (pthread == NULL) return bounds;
    uintptr_t high = (uintptr_t)pthread_get_stackaddr_np(pthread);
    size_t size = pthread_get_stacksize_np(pthread);
    if (high > size) {
        bounds.low = high - size;
        bounds.high = high;
    }
    return bounds;
}

// `thread <id> <crashed> <flags> <source> <count> <frames…> <name blob>`, as on Linux.
static void vigil_mach_write_thread(vigil_report_writer *writer, thread_t thread, int crashed, uint32_t max_frames) {
    vigil_mach_registers registers = vigil_mach_thread_registers(thread);
    uint32_t flags = 0;
    uint32_t count = 0;
    if (registers.ok) {
        count = vigil_walk_frames(registers.pc, registers.fp, registers.sp, vigil_mach_stack_bounds(thread),
                                  vigil_mach.frames, max_frames, &flags);
#if defined(__arm64__)
        // A leaf keeps its return address in lr: report it second unless the walk already did.
        if (count >= 1 && count < max_frames && registers.lr != 0 && (count < 2 || vigil_mach.frames[1] != registers.lr)) {
            memmove(&vigil_mach.frames[2], &vigil_mach.frames[1], (count - 1) * sizeof(uintptr_t));
            vigil_mach.frames[1] = registers.lr;
            count++;
            flags |= 1u << 11;  // VIGIL_UNWIND_LINK_REGISTER
        }
#endif
    } else {
        flags = 1u << 13;  // VIGIL_UNWIND_NO_REGISTERS
    }
    char name[64] = {0};
    pthread_t pthread = pthread_from_mach_thread_np(thread);
    if (pthread != NULL) pthread_getname_np(pthread, name, sizeof name);
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
static void vigil_mach_capture(thread_t crashed, exception_type_t exception, int64_t code0, int64_t code1, int signal_number) {
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

    vigil_mach_registers registers = vigil_mach_thread_registers(crashed);
    const struct { const char *name; uintptr_t value; } named[] = {
        {"pc", registers.pc}, {"fp", registers.fp}, {"sp", registers.sp}, {"lr", registers.lr},
    };
    for (size_t index = 0; index < sizeof named / sizeof named[0]; index++) {
        vigil_report_begin(writer, "reg");
        vigil_report_word(writer, named[index].name);
        vigil_report_hex(writer, named[index].value);
        vigil_report_end(writer);
    }
    vigil_mach_write_thread(writer, crashed, 1, vigil_mach.max_frames);

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
    uint32_t others = 0;
    for (mach_msg_type_number_t index = 0; index < thread_count; index++) {
        if (threads[index] == crashed || threads[index] == self) continue;
        vigil_mach_write_thread(writer, threads[index], 0, vigil_mach.max_frames_other);
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
    for (mach_msg_type_number_t index = 0; index < vigil_mach.saved_count; index++) {
        task_set_exception_ports(mach_task_self(), vigil_mach.saved_masks[index], vigil_mach.saved_ports[index],
                                 vigil_mach.saved_behaviors[index], vigil_mach.saved_flavors[index]);
    }
}

// The exception server: one thread, blocked in mach_msg until the kernel reports an exception.
// It runs on its own stack, so a stack overflow of the crashed thread is reported too.
static void *vigil_mach_server(void *unused) {
    (void)unused;
    pthread_setname_np("vigil.crash.mach");
    while (1) {
        vigil_exception_request request;
        memset(&request, 0, sizeof request);
        kern_return_t status = mach_msg(&request.header, MACH_RCV_MSG | MACH_RCV_LARGE, 0, sizeof request,
                                        vigil_mach.exception_port, MACH_MSG_TIMEOUT_NONE, MACH_PORT_NULL);
        if (status != KERN_SUCCESS) continue;
        thread_t crashed = request.thread.name;
        uintptr_t expected = 0;
        if (atomic_load(&vigil_mach.armed) &&
            atomic_compare_exchange_strong(&vigil_mach.owner, &expected, (uintptr_t)crashed)) {
            int signal_number = vigil_mach_signal_for(request.exception, request.code[0]);
            vigil_mach_capture(crashed, request.exception, request.code[0], request.code[1], signal_number);
        }
        // The exception goes on: the previous ports (a debugger, the system's crash reporter)
        // get it next, then the kernel raises the BSD signal, and the process dies as it would
        // have without Vigil.
        vigil_mach_restore_previous_ports();
        vigil_exception_reply reply;
        memset(&reply, 0, sizeof reply);
        reply.header.msgh_bits = MACH_MSGH_BITS(MACH_MSGH_BITS_REMOTE(request.header.msgh_bits), 0);
        reply.header.msgh_remote_port = request.header.msgh_remote_port;
        reply.header.msgh_size = sizeof reply;
        reply.header.msgh_id = request.header.msgh_id + 100;
        reply.ndr = NDR_record;
        reply.result = KERN_FAILURE;
        mach_msg(&reply.header, MACH_SEND_MSG, sizeof reply, 0, MACH_PORT_NULL, MACH_MSG_TIMEOUT_NONE, MACH_PORT_NULL);
    }
    return NULL;
}

// abort() raises SIGABRT without a Mach exception a task port receives: capture it here.
static void vigil_mach_handle_abort(int signal_number, siginfo_t *info, void *context) {
    (void)info;
    (void)context;
    int saved_errno = errno;
    uintptr_t expected = 0;
    thread_t self = mach_thread_self();
    if (atomic_load(&vigil_mach.armed) && atomic_compare_exchange_strong(&vigil_mach.owner, &expected, (uintptr_t)self)) {
        vigil_mach_capture(self, EXC_CRASH, 0, 0, signal_number);
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
    mach_port_t port = MACH_PORT_NULL;
    if (mach_port_allocate(mach_task_self(), MACH_PORT_RIGHT_RECEIVE, &port) != KERN_SUCCESS) return ENOMEM;
    if (mach_port_insert_right(mach_task_self(), port, port, MACH_MSG_TYPE_MAKE_SEND) != KERN_SUCCESS) return ENOMEM;
    vigil_mach.exception_port = port;
    vigil_mach.saved_count = VIGIL_MACH_SAVED_PORTS;
    if (task_swap_exception_ports(mach_task_self(), VIGIL_MACH_EXCEPTION_MASK, port,
                                  (exception_behavior_t)(EXCEPTION_DEFAULT | MACH_EXCEPTION_CODES), THREAD_STATE_NONE,
                                  vigil_mach.saved_masks, &vigil_mach.saved_count, vigil_mach.saved_ports,
                                  vigil_mach.saved_behaviors, vigil_mach.saved_flavors) != KERN_SUCCESS) {
        return EPERM;
    }
    if (pthread_create(&vigil_mach.server, NULL, vigil_mach_server, NULL) != 0) return EAGAIN;
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

#else  // Not an Apple platform: the Mach sibling does not exist.

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
