// vigil_darwin_thread.h: reading another thread of this process on Apple platforms with kernel
// calls only, for the Mach crash handler and the thread sampler.
//
// While other threads are suspended, nothing here may take a user-space lock: a suspended thread
// may hold it. libpthread's lookups (`pthread_from_mach_thread_np`, `pthread_get_stackaddr_np`,
// `pthread_getname_np`) take `_pthread_list_lock`, which a thread inside `pthread_create` or
// thread exit holds; so stack bounds come from the VM region around the stack pointer
// (`vm_region_64`) and names from `thread_info(THREAD_EXTENDED_INFO)`, both Mach traps.
//
// Thread ports are plain `uint32_t` here (a `thread_act_t` on Apple platforms) so the header
// compiles everywhere; on other platforms every function reports ENOTSUP or nothing.
#ifndef VIGIL_DARWIN_THREAD_H
#define VIGIL_DARWIN_THREAD_H

#include <stdint.h>

#include "vigil_stack_walk.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A thread's registers as far as a frame walk needs them (`lr` is 0 on x86_64); `ok` is 0 when
/// they could not be read.
typedef struct vigil_darwin_registers {
    uintptr_t pc, fp, sp, lr;
    int ok;
} vigil_darwin_registers;

/// Reads a (suspended) thread's registers with `thread_get_state`. Async-signal-safe (a Mach
/// trap, no lock).
vigil_darwin_registers vigil_darwin_thread_registers(uint32_t thread);

/// Reads the interrupted registers from the `ucontext_t *` an `SA_SIGINFO` handler received.
/// Async-signal-safe.
vigil_darwin_registers vigil_darwin_ucontext_registers(const void *ucontext);

/// The readable VM region that holds `sp`, as stack bounds: a thread's stack is one VM region.
/// When `sp` sits in an unreadable region (a stack overflow ran into the guard page), the
/// readable region just above is used. `{0, 0}` when nothing readable is found. Kernel calls
/// only (`vm_region_64`); async-signal-safe.
vigil_stack_bounds vigil_darwin_stack_bounds(uintptr_t sp);

/// Copies the thread's name (`thread_info(THREAD_EXTENDED_INFO)`, the name `pthread_setname_np`
/// set) into `name`, NUL-terminated; returns its length, 0 when it has none. Async-signal-safe.
uint32_t vigil_darwin_thread_name(uint32_t thread, char *name, uint32_t capacity);

/// Walks a thread from its registers: `vigil_walk_frames`, then on arm64 the link register
/// (`vigil_walk_insert_link_register`, flag VIGIL_UNWIND_LINK_REGISTER). Async-signal-safe.
uint32_t vigil_darwin_walk_registers(const vigil_darwin_registers *registers, vigil_stack_bounds bounds,
                                     uintptr_t *frames, uint32_t capacity, uint32_t *flags);

/// Samples another thread in one call with no Swift or Objective-C runtime in between:
/// `thread_suspend`, `thread_get_state`, the walk (inside `bounds`, found before), `thread_resume`.
/// Returns 0, EDEADLK for the calling thread (suspending oneself never returns), ESRCH when the
/// thread could not be suspended, EIO when its registers could not be read, ENOTSUP elsewhere.
/// Not async-signal-safe only in that it must not run on the target thread.
int vigil_darwin_sample_thread(uint32_t thread, vigil_stack_bounds bounds, uintptr_t *frames, uint32_t capacity,
                               uint32_t *count, uint32_t *stop_reason);

#ifdef __cplusplus
}
#endif

#endif
