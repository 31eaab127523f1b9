// vigil_crash_unwind.h: the crash handler's stack walk: the frame-pointer walker of
// vigil_stack_walk.h, started from a frame record that is checked first, and preceded by the
// return addresses that sit between the stack pointer and that record.
//
// Why more than a plain frame-pointer walk: at crash time the interrupted instruction is often
// in code without frame pointers (glibc's abort and raise, a system call wrapper, a leaf
// function such as memcpy). Then the frame-pointer register holds the caller's record (and the
// caller of the leaf is lost) or garbage (and the walk stops at once). So:
//   1. the frame pointer is used as the first record only if the record checks out (aligned,
//      inside the stack, its return address is a plausible return address, and so is the next
//      record's); otherwise the stack is searched upwards from the stack pointer (16 KiB at
//      most) for the first record that checks out and whose return address is consistent with
//      the frames found below it (see 2.), so that a stale record-like pair in an uninitialised
//      local is not taken for the chain;
//   2. the words between the stack pointer and that record that are plausible return addresses
//      are reported first (at most 32): the return address of a leaf, and the frames of
//      functions without frame pointers. Each must be consistent with the frame inside it: its
//      call instruction's target (a direct call, a call through a PC-relative slot, followed
//      through a PLT stub) is the start of the function the inner frame lies in. A call through
//      a register cannot be checked and is kept only as a leaf's return address right at the
//      stack pointer;
//   3. the walk continues with `vigil_walk_frames` from that record.
// A plausible return address points into an executable mapping, just after a call instruction
// (x86_64: `call rel32`, `call r/m`; arm64: `bl`, `blr`). The consistency check makes a stale
// return address left in a local variable unlikely to pass, not impossible; the flags say when
// scanning contributed.
//
// The crash handler's internals; exposed for tests.
#ifndef VIGIL_CRASH_UNWIND_H
#define VIGIL_CRASH_UNWIND_H

#include <stdint.h>

#include "vigil_crash_memory_map.h"
#include "vigil_stack_walk.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Flags the crash walk adds to the `VIGIL_WALK_*` flags of vigil_stack_walk.h.
enum {
    /// Frames between the stack pointer and the first record were found by scanning.
    VIGIL_UNWIND_SCANNED = 1u << 8,
    /// The first frame record was found by searching the stack (the frame-pointer register did
    /// not hold one).
    VIGIL_UNWIND_RECORD_SEARCHED = 1u << 9,
    /// No memory map: only the frame-pointer walk inside the fallback bounds was possible.
    VIGIL_UNWIND_NO_MAP = 1u << 10,
    /// The link register was reported as the second frame (arm64).
    VIGIL_UNWIND_LINK_REGISTER = 1u << 11,
    /// The thread's registers came from /proc/self/task/<tid>/syscall (stack and instruction
    /// pointer of a thread blocked in the kernel that could not be parked), not from a signal.
    VIGIL_UNWIND_FROM_PROC = 1u << 12,
    /// No registers at all: the thread was running and could not be parked.
    VIGIL_UNWIND_NO_REGISTERS = 1u << 13,
};

/// The registers a walk starts from.
typedef struct vigil_crash_registers {
    uintptr_t pc;
    uintptr_t sp;
    uintptr_t fp;
    uintptr_t lr;
    uint32_t has_fp;
    uint32_t has_lr;
} vigil_crash_registers;

/// Whether `address` is a plausible return address: inside a readable, executable mapping of
/// `map`, right after a call instruction. Async-signal-safe (reads only inside the mapping).
int vigil_crash_is_return_address(const vigil_memory_map *map, uintptr_t address);

/// Walks a stack from `registers` (see the file comment). `map` may be NULL or empty; then only
/// the frame-pointer walk inside `fallback` runs (flag VIGIL_UNWIND_NO_MAP). Writes the PC first,
/// then return addresses, at most `capacity`; sets `*flags` (may be NULL). Returns the count.
///
/// Async-signal-safe: reads stack words only inside the stack's mapping and code bytes only
/// inside executable mappings, no locks, no allocation.
uint32_t vigil_crash_unwind(const vigil_memory_map *map, const vigil_crash_registers *registers,
                            vigil_stack_bounds fallback, uintptr_t *frames, uint32_t capacity, uint32_t *flags);

/// The registers a walk starts from, from a `ucontext_t *` of an SA_SIGINFO handler (Linux
/// x86_64 and aarch64). Returns 0 on another architecture. Async-signal-safe.
int vigil_crash_registers_from_ucontext(const void *ucontext, vigil_crash_registers *registers);

#ifdef __cplusplus
}
#endif

#endif
