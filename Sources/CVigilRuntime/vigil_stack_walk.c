// Frame-pointer walking. See include/vigil_stack_walk.h for the contract.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_stack_walk.h"

#include <errno.h>
#include <signal.h>
#if defined(__APPLE__)
// <ucontext.h> refuses to compile on Apple platforms without _XOPEN_SOURCE; the type and the
// machine context live here.
#include <sys/ucontext.h>
#else
#include <ucontext.h>
#endif

#if defined(__APPLE__)
#include <TargetConditionals.h>
#include <mach/vm_param.h>
#endif
#if defined(__APPLE__) && defined(__arm64e__) && __has_include(<ptrauth.h>)
#include <ptrauth.h>
#endif

#if defined(__aarch64__) || defined(__arm64__)
#define VIGIL_FRAME_ALIGNMENT 16u
#else
#define VIGIL_FRAME_ALIGNMENT 8u
#endif

#if defined(__APPLE__) && defined(__arm64__)
#if TARGET_OS_OSX
#define VIGIL_ARM64_ADDRESS_MASK VIGIL_ARM64_ADDRESS_MASK_MACOS
#else
#define VIGIL_ARM64_ADDRESS_MASK VIGIL_ARM64_ADDRESS_MASK_MOBILE
#endif
// The mask must keep every bit a user address can have on this platform, or stripping would
// damage real addresses.
_Static_assert(((MACH_VM_MAX_ADDRESS_RAW - 1) & ~VIGIL_ARM64_ADDRESS_MASK) == 0,
               "the pointer-authentication mask must cover the whole user address space");
#endif

uintptr_t vigil_strip_return_address(uintptr_t address) {
#if defined(__APPLE__) && defined(__arm64e__) && __has_include(<ptrauth.h>)
    return (uintptr_t)ptrauth_strip((void *)address, ptrauth_key_return_address);
#elif defined(__APPLE__) && defined(__arm64__)
    // A plain arm64 process still runs the system's arm64e libraries on A12 and later, and they
    // sign what they save; the kernel hands back signed pc and lr too.
    return (uintptr_t)vigil_arm64_strip_pointer_authentication(address, VIGIL_ARM64_ADDRESS_MASK);
#else
    return address;
#endif
}

uint32_t vigil_walk_frames(uintptr_t pc, uintptr_t fp, uintptr_t sp, vigil_stack_bounds bounds,
                           uintptr_t *frames, uint32_t capacity, uint32_t *stop_reason) {
    uint32_t count = 0;
    uint32_t reason = 0;
    if (frames == NULL || capacity == 0) {
        if (stop_reason) *stop_reason = VIGIL_WALK_TRUNCATED;
        return 0;
    }
    frames[count++] = vigil_strip_return_address(pc);

    // A frame record is two words; the highest record that can be read whole starts two words
    // below the top of the stack.
    const uintptr_t record = 2 * sizeof(uintptr_t);
    uintptr_t low = bounds.low;
    if (sp > low) low = sp;
    if (bounds.high < record || bounds.high - record < low) {
        if (stop_reason) *stop_reason = VIGIL_WALK_OUT_OF_BOUNDS;
        return count;
    }
    const uintptr_t high = bounds.high - record;

    while (1) {
        if (fp == 0) { reason |= VIGIL_WALK_COMPLETE; break; }
        if (fp < low || fp > high) { reason |= VIGIL_WALK_OUT_OF_BOUNDS; break; }
        if ((fp & (VIGIL_FRAME_ALIGNMENT - 1)) != 0) { reason |= VIGIL_WALK_MISALIGNED; break; }
        const uintptr_t *record_words = (const uintptr_t *)fp;
        uintptr_t next = record_words[0];
        uintptr_t return_address = vigil_strip_return_address(record_words[1]);
        if (return_address == 0) { reason |= VIGIL_WALK_COMPLETE; break; }
        if (count == capacity) { reason |= VIGIL_WALK_TRUNCATED; break; }
        frames[count++] = return_address;
        if (next == 0) { reason |= VIGIL_WALK_COMPLETE; break; }
        // Callers' records sit strictly higher on a downward-growing stack; anything else is a
        // cycle or garbage, and stopping here is what bounds the walk.
        if (next <= fp) { reason |= VIGIL_WALK_LOOP; break; }
        // The next record is read only after the checks at the top of the loop.
        low = fp + record;
        fp = next;
    }
    if (stop_reason) *stop_reason = reason;
    return count;
}

uint32_t vigil_walk_insert_link_register(uintptr_t *frames, uint32_t count, uint32_t capacity, uintptr_t lr,
                                         int *inserted) {
    if (inserted) *inserted = 0;
    lr = vigil_strip_return_address(lr);
    if (frames == NULL || count == 0 || capacity < 2 || lr == 0) return count;
    if (count >= 2 && frames[1] == lr) return count;
    uint32_t kept = count < capacity ? count : capacity - 1;
    for (uint32_t index = kept; index > 1; index--) frames[index] = frames[index - 1];
    frames[1] = lr;
    if (inserted) *inserted = 1;
    return kept + 1;
}

uint32_t vigil_walk_ucontext(const void *ucontext, vigil_stack_bounds bounds,
                             uintptr_t *frames, uint32_t capacity, uint32_t *stop_reason) {
    if (ucontext == NULL) {
        if (stop_reason) *stop_reason = VIGIL_WALK_UNSUPPORTED;
        return 0;
    }
    const ucontext_t *context = (const ucontext_t *)ucontext;
#if defined(__linux__) && defined(__x86_64__)
    uintptr_t pc = (uintptr_t)context->uc_mcontext.gregs[REG_RIP];
    uintptr_t fp = (uintptr_t)context->uc_mcontext.gregs[REG_RBP];
    uintptr_t sp = (uintptr_t)context->uc_mcontext.gregs[REG_RSP];
#elif defined(__linux__) && defined(__aarch64__)
    uintptr_t pc = (uintptr_t)context->uc_mcontext.pc;
    uintptr_t fp = (uintptr_t)context->uc_mcontext.regs[29];
    uintptr_t sp = (uintptr_t)context->uc_mcontext.sp;
#elif defined(__APPLE__) && defined(__arm64__)
    uintptr_t pc = (uintptr_t)__darwin_arm_thread_state64_get_pc(context->uc_mcontext->__ss);
    uintptr_t fp = (uintptr_t)__darwin_arm_thread_state64_get_fp(context->uc_mcontext->__ss);
    uintptr_t sp = (uintptr_t)__darwin_arm_thread_state64_get_sp(context->uc_mcontext->__ss);
#elif defined(__APPLE__) && defined(__x86_64__)
    uintptr_t pc = (uintptr_t)context->uc_mcontext->__ss.__rip;
    uintptr_t fp = (uintptr_t)context->uc_mcontext->__ss.__rbp;
    uintptr_t sp = (uintptr_t)context->uc_mcontext->__ss.__rsp;
#else
    (void)context; (void)bounds; (void)frames; (void)capacity;
    if (stop_reason) *stop_reason = VIGIL_WALK_UNSUPPORTED;
    return 0;
#endif
#if (defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))) || \
    (defined(__APPLE__) && (defined(__arm64__) || defined(__x86_64__)))
    return vigil_walk_frames(pc, fp, sp, bounds, frames, capacity, stop_reason);
#endif
}

__attribute__((noinline))
uint32_t vigil_walk_current_thread(vigil_stack_bounds bounds, uintptr_t *frames, uint32_t capacity,
                                   uint32_t *stop_reason) {
    // This function's own frame record gives the return address into the caller; starting
    // from it (rather than from a PC inside this function) keeps the first entry meaningful.
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    if (frames == NULL || capacity == 0) {
        if (stop_reason) *stop_reason = VIGIL_WALK_TRUNCATED;
        return 0;
    }
    const uintptr_t *record = (const uintptr_t *)fp;
    uintptr_t return_address = record[1];
    return vigil_walk_frames(return_address, record[0], fp, bounds, frames, capacity, stop_reason);
}

int vigil_thread_stack_bounds(pthread_t thread, vigil_stack_bounds *bounds) {
    if (bounds == NULL) return EINVAL;
#if defined(__APPLE__)
    uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(thread);
    size_t size = pthread_get_stacksize_np(thread);
    bounds->high = top;
    bounds->low = top - size;
    return 0;
#elif defined(__linux__)
    pthread_attr_t attributes;
    int status = pthread_getattr_np(thread, &attributes);
    if (status != 0) return status;
    void *address = NULL;
    size_t size = 0;
    status = pthread_attr_getstack(&attributes, &address, &size);
    pthread_attr_destroy(&attributes);
    if (status != 0) return status;
    bounds->low = (uintptr_t)address;
    bounds->high = (uintptr_t)address + size;
    return 0;
#else
    (void)thread;
    return ENOTSUP;
#endif
}
