// vigil_stack_walk.h: frame-pointer stack walking, bounded and validated, usable from a
// signal handler (the main-thread sampler and, later, the crash handler).
//
// Vigil walks frame pointers, not CFI: each frame record is the pair {previous frame pointer,
// return address} that x86_64 (`push rbp; mov rbp, rsp`) and arm64 (`stp x29, x30`) code keeps
// when it is compiled with frame pointers. Code built without them (Swift at -O on Linux unless
// `-fno-omit-frame-pointer` is passed) ends the walk early: the stack is truncated, never wrong
// in the frames it does report, because every frame pointer is checked against the thread's
// stack bounds, its alignment and the previous frame before it is read.
#ifndef VIGIL_STACK_WALK_H
#define VIGIL_STACK_WALK_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The address range of a thread's stack: `low` is the lowest readable byte, `high` one past
/// the highest. Stacks grow down, so the outermost frames sit near `high`.
typedef struct vigil_stack_bounds {
    uintptr_t low;
    uintptr_t high;
} vigil_stack_bounds;

/// Why a walk stopped (bit flags; a walk that reached the outermost frame reports
/// `VIGIL_WALK_COMPLETE` alone).
enum {
    /// The chain ended normally: a null frame pointer or a null return address.
    VIGIL_WALK_COMPLETE = 1u << 0,
    /// The output buffer filled before the chain ended.
    VIGIL_WALK_TRUNCATED = 1u << 1,
    /// A frame pointer fell outside the stack bounds (code without frame pointers, or a
    /// register that holds something else).
    VIGIL_WALK_OUT_OF_BOUNDS = 1u << 2,
    /// A frame pointer was not aligned as the ABI requires.
    VIGIL_WALK_MISALIGNED = 1u << 3,
    /// A frame pointer did not move towards the stack's base: a loop or a corrupted chain.
    VIGIL_WALK_LOOP = 1u << 4,
    /// The architecture (or the ucontext) is not supported: only the program counter, if any,
    /// was recorded.
    VIGIL_WALK_UNSUPPORTED = 1u << 5,
};

/// The address bits of a user-space code or stack pointer on Apple arm64 systems other than
/// macOS: `MACH_VM_MAX_ADDRESS` is 0xFC0000000 there, so 36 bits hold every address (the mask
/// KSCrash and sentry-cocoa strip with).
#define VIGIL_ARM64_ADDRESS_MASK_MOBILE 0x0000000FFFFFFFFFull
/// The same for macOS on Apple silicon, whose user address space reaches 0x7FFFFE000000 (47 bits).
#define VIGIL_ARM64_ADDRESS_MASK_MACOS 0x00007FFFFFFFFFFFull

/// Removes the pointer-authentication code (and any top-byte tag) from an arm64 pointer:
/// keeps the bits of `address_mask`, which must cover every user address.
///
/// On A12 and later Apple chips the system libraries sign the return addresses they save
/// (arm64e), and do so even inside a process built for plain arm64; a frame walk reads those
/// signed values from the stack and from `lr`. Pure arithmetic, compiled and tested on every
/// platform. Async-signal-safe.
static inline uint64_t vigil_arm64_strip_pointer_authentication(uint64_t address, uint64_t address_mask) {
    return address & address_mask;
}

/// Strips pointer-authentication bits from a return address or program counter read from this
/// process on this platform: on every Apple arm64 build (arm64e with `ptrauth_strip`, plain arm64
/// with the platform's address mask); elsewhere the address is returned unchanged. Every address
/// `vigil_walk_frames` records goes through it. Async-signal-safe.
uintptr_t vigil_strip_return_address(uintptr_t address);

/// Walks a frame-pointer chain starting at a thread's registers.
///
/// Writes `pc` first (the exact interrupted instruction), then one return address per frame
/// record, innermost first, at most `capacity` entries. Return addresses point after their call
/// instruction: symbolicate `address - 1` for every entry but the first. On every Apple arm64
/// build the pointer-authentication bits are stripped (`vigil_strip_return_address`).
///
/// `sp` (0 if unknown) tightens the lower bound: no live frame record sits below the stack
/// pointer. Each frame pointer must lie in `[max(bounds.low, sp), bounds.high - 2 words]`, be
/// aligned (8 bytes on x86_64, 16 on arm64) and be above the previous one, so the walk reads
/// only memory inside the stack and always ends. `stop_reason` (may be NULL) receives the
/// `VIGIL_WALK_*` flags. Returns the number of addresses written.
///
/// Async-signal-safe: reads memory only inside `bounds`, no locks, no allocation.
uint32_t vigil_walk_frames(uintptr_t pc, uintptr_t fp, uintptr_t sp, vigil_stack_bounds bounds,
                           uintptr_t *frames, uint32_t capacity, uint32_t *stop_reason);

/// Adds an arm64 thread's link register to a walk that started at its registers: `lr` (stripped
/// of pointer authentication) goes second, after the pc, unless the walk's second entry already
/// is that address or `lr` is 0. A leaf function saves no frame record, so its caller appears only
/// in `lr`; a function that did save one wrote `lr` into it at entry, so a walk of it already has
/// that address second. (A non-leaf function that has called something since holds a stale `lr`
/// inside itself: that entry then repeats the function of the first frame. Without unwind tables
/// at crash time there is no telling the two apart; the reference crash reporters insert it too.)
///
/// `frames` holds `count` entries of a walk (the pc first) and room for `capacity`; when full,
/// the outermost entry is dropped. Returns the new count, and sets `*inserted` (may be NULL).
/// Pure, compiled and tested everywhere. Async-signal-safe.
uint32_t vigil_walk_insert_link_register(uintptr_t *frames, uint32_t count, uint32_t capacity, uintptr_t lr,
                                         int *inserted);

/// Walks the frame-pointer chain of the thread a signal interrupted, from the `ucontext_t *`
/// the kernel passed to an `SA_SIGINFO` handler (Linux x86_64 and aarch64, Darwin arm64 and
/// x86_64). On another architecture it records nothing and reports `VIGIL_WALK_UNSUPPORTED`.
///
/// Async-signal-safe.
uint32_t vigil_walk_ucontext(const void *ucontext, vigil_stack_bounds bounds,
                             uintptr_t *frames, uint32_t capacity, uint32_t *stop_reason);

/// Walks the calling thread's own stack from the caller of this function (the first entry is
/// the return address into the caller). For tests and for capturing "where am I" stacks.
///
/// Async-signal-safe.
uint32_t vigil_walk_current_thread(vigil_stack_bounds bounds, uintptr_t *frames, uint32_t capacity,
                                   uint32_t *stop_reason);

/// Finds the stack bounds of `thread` (the main thread included). Returns 0 on success or an
/// errno value.
///
/// NOT async-signal-safe (glibc's `pthread_getattr_np` reads /proc/self/maps and allocates):
/// call it at install time and keep the result.
int vigil_thread_stack_bounds(pthread_t thread, vigil_stack_bounds *bounds);

#ifdef __cplusplus
}
#endif

#endif
