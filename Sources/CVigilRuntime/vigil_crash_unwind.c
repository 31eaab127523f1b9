// The crash-time stack walk. See include/vigil_crash_unwind.h for the contract.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_crash_unwind.h"

#include <signal.h>
#include <string.h>
#if defined(__APPLE__)
// Apple's <ucontext.h> is the deprecated context-switching API and refuses to compile without
// _XOPEN_SOURCE; the ucontext_t and mcontext types live in <sys/ucontext.h>.
#include <sys/ucontext.h>
#else
#include <ucontext.h>
#endif

#if defined(__aarch64__) || defined(__arm64__)
#define VIGIL_RECORD_ALIGNMENT 16u
#else
#define VIGIL_RECORD_ALIGNMENT 8u
#endif

/// How far above the stack pointer the first frame record is searched for.
#define VIGIL_RECORD_SEARCH_BYTES (16u * 1024u)
/// Scanned return addresses kept before the first record.
#define VIGIL_SCANNED_FRAMES_MAX 32u

#if defined(__x86_64__)
// Length of a `call r/m64` (FF /2) whose ModRM byte is `modrm` and, when present, SIB byte `sib`.
static int vigil_call_rm_length(uint8_t modrm, uint8_t sib) {
    uint8_t mod = modrm >> 6;
    uint8_t rm = modrm & 7;
    if (((modrm >> 3) & 7) != 2) return 0;
    if (mod == 3) return 2;
    int length = 2;
    if (rm == 4) {
        length += 1;
        if (mod == 0 && (sib & 7) == 5) length += 4;
    }
    if (mod == 0 && rm == 5) length += 4;
    if (mod == 1) length += 1;
    if (mod == 2) length += 4;
    return length;
}
#endif

int vigil_crash_is_return_address(const vigil_memory_map *map, uintptr_t address) {
    const vigil_mapping *mapping = vigil_memory_map_find(map, address - 1);
    if (mapping == NULL) return 0;
    const uint32_t wanted = VIGIL_MAPPING_READ | VIGIL_MAPPING_EXECUTE;
    if ((mapping->flags & wanted) != wanted || address > mapping->end) return 0;
#if defined(__x86_64__)
    uintptr_t available = address - mapping->start;
    const uint8_t *code = (const uint8_t *)address;
    // call rel32
    if (available >= 5 && code[-5] == 0xE8) return 1;
    // call r/m64, optionally with a REX prefix (which sits before the FF and does not change
    // where the instruction ends): 2 to 7 bytes.
    for (uintptr_t length = 2; length <= 7 && length <= available; length++) {
        if (code[-(intptr_t)length] != 0xFF) continue;
        uint8_t modrm = code[-(intptr_t)length + 1];
        uint8_t sib = length >= 3 ? code[-(intptr_t)length + 2] : 0;
        if ((uintptr_t)vigil_call_rm_length(modrm, sib) == length) return 1;
    }
    return 0;
#elif defined(__aarch64__) || defined(__arm64__)
    if ((address & 3) != 0 || address - mapping->start < 4) return 0;
    uint32_t instruction;
    memcpy(&instruction, (const void *)(address - 4), sizeof instruction);
    if ((instruction & 0xFC000000u) == 0x94000000u) return 1;          // bl
    if ((instruction & 0xFFFFFC1Fu) == 0xD63F0000u) return 1;          // blr
    if ((instruction & 0xFEFFF800u) == 0xD63F0800u) return 1;          // blraa, blrab, blraaz, blrabz
    return 0;
#else
    (void)address;
    return 0;
#endif
}

static int vigil_read_word(const vigil_memory_map *map, uintptr_t address, uintptr_t *value) {
    if (!vigil_memory_map_is_readable(map, address, sizeof(uintptr_t))) return 0;
    memcpy(value, (const void *)address, sizeof(uintptr_t));
    return 1;
}

// A PLT stub jumps through a slot that holds the real function's address: follow it, so that a
// call to `abort@plt` counts as a call to abort. Returns `target` when it is not such a stub.
static uintptr_t vigil_resolve_stub(const vigil_memory_map *map, uintptr_t target) {
#if defined(__x86_64__)
    if (!vigil_memory_map_is_readable(map, target, 11)) return target;
    const uint8_t *code = (const uint8_t *)target;
    uintptr_t at = target;
    if (code[0] == 0xF3 && code[1] == 0x0F && code[2] == 0x1E && code[3] == 0xFA) at += 4;  // endbr64
    const uint8_t *jump = (const uint8_t *)at;
    if (jump[0] == 0xF2) jump++, at++;                                                      // bnd
    if (jump[0] != 0xFF || jump[1] != 0x25) return target;                                  // jmp *disp32(%rip)
    int32_t displacement;
    memcpy(&displacement, jump + 2, sizeof displacement);
    uintptr_t slot = at + 6 + (intptr_t)displacement;
    uintptr_t resolved;
    return vigil_read_word(map, slot, &resolved) ? resolved : target;
#elif defined(__aarch64__) || defined(__arm64__)
    if (!vigil_memory_map_is_readable(map, target, 8) || (target & 3) != 0) return target;
    uint32_t adrp, load;
    memcpy(&adrp, (const void *)target, 4);
    memcpy(&load, (const void *)(target + 4), 4);
    // adrp x16, page ; ldr x17, [x16, #offset]
    if ((adrp & 0x9F00001Fu) != 0x90000010u || (load & 0xFFC003FFu) != 0xF9400211u) return target;
    int64_t page = (int64_t)((((adrp >> 5) & 0x7FFFFu) << 2) | ((adrp >> 29) & 3u));
    if (page & (1 << 20)) page -= (int64_t)1 << 21;
    uintptr_t slot = (target & ~(uintptr_t)0xFFF) + (uintptr_t)(page << 12) + (uintptr_t)(((load >> 10) & 0xFFFu) << 3);
    uintptr_t resolved;
    return vigil_read_word(map, slot, &resolved) ? resolved : target;
#else
    (void)map;
    return target;
#endif
}

// The function a return address's call instruction called, when the instruction says (a direct
// call, or a call through a PC-relative slot), through a PLT stub; 0 when it cannot be known (a
// call through a register).
static uintptr_t vigil_call_target(const vigil_memory_map *map, uintptr_t return_address) {
#if defined(__x86_64__)
    const vigil_mapping *mapping = vigil_memory_map_find(map, return_address - 1);
    if (mapping == NULL || return_address - mapping->start < 6) return 0;
    const uint8_t *code = (const uint8_t *)return_address;
    int32_t displacement;
    if (code[-5] == 0xE8) {
        memcpy(&displacement, code - 4, sizeof displacement);
        return vigil_resolve_stub(map, return_address + (intptr_t)displacement);
    }
    if (code[-6] == 0xFF && code[-5] == 0x15) {
        memcpy(&displacement, code - 4, sizeof displacement);
        uintptr_t target;
        return vigil_read_word(map, return_address + (intptr_t)displacement, &target) ? target : 0;
    }
    return 0;
#elif defined(__aarch64__) || defined(__arm64__)
    uint32_t instruction;
    memcpy(&instruction, (const void *)(return_address - 4), sizeof instruction);
    if ((instruction & 0xFC000000u) != 0x94000000u) return 0;
    int64_t offset = (int64_t)(instruction & 0x03FFFFFFu);
    if (offset & (1 << 25)) offset -= (int64_t)1 << 26;
    return vigil_resolve_stub(map, return_address - 4 + (uintptr_t)(offset * 4));
#else
    (void)map;
    (void)return_address;
    return 0;
#endif
}

/// The largest distance from a function's entry to an address inside it that the consistency
/// check accepts, and how far above the inner frame a call target may lie (a tail call into a
/// neighbouring function).
#define VIGIL_FUNCTION_SIZE_MAX (16u * 1024u * 1024u)
#define VIGIL_TAIL_CALL_SLACK 4096u

// A scanned return address `candidate`, found at `slot`, is kept only if its call is consistent
// with the frame inside it (`inner`: the PC, or the previous return address): the call's target
// is the start of the function `inner` lies in, so target <= inner < target + 16 MiB (or the
// target lies at most 4 KiB above `inner`: a tail call into a neighbour). A call
// through a register cannot be checked: such a candidate is kept only as a leaf's return address
// (nothing kept yet, within 64 bytes of the stack pointer). This keeps stale return addresses
// that uninitialised locals hold from being reported as frames.
static int vigil_scanned_frame_is_consistent(const vigil_memory_map *map, uintptr_t candidate, uintptr_t inner,
                                             uintptr_t slot, uintptr_t low, uint32_t scanned) {
    uintptr_t target = vigil_call_target(map, candidate);
    if (target == 0) return scanned == 0 && slot - low < 64;
    if (target <= inner) return inner - target < VIGIL_FUNCTION_SIZE_MAX;
    // The called function may have tail-called a neighbour placed just below it (glibc's
    // pthread_kill into __pthread_kill_implementation): accept a target a little above.
    return target - inner < VIGIL_TAIL_CALL_SLACK;
}

// A frame record at `record` checks out: aligned, inside [low, high - 2 words], its return
// address is plausible, and its successor is a higher record whose return address is plausible
// too, or (only when `allow_outermost`, i.e. for the frame-pointer register itself) 0. A record
// found by searching must link to a real successor: a zero word followed by a code address is
// too common on a stack to be taken for the outermost frame.
static int vigil_record_is_valid(const vigil_memory_map *map, uintptr_t record, uintptr_t low, uintptr_t high,
                                 int allow_outermost) {
    const uintptr_t size = 2 * sizeof(uintptr_t);
    if ((record & (VIGIL_RECORD_ALIGNMENT - 1)) != 0 || record < low || high < size || record > high - size) return 0;
    const uintptr_t *words = (const uintptr_t *)record;
    if (!vigil_crash_is_return_address(map, words[1])) return 0;
    uintptr_t next = words[0];
    if (next == 0) return allow_outermost;
    if (next <= record || (next & (VIGIL_RECORD_ALIGNMENT - 1)) != 0 || next > high - size) return 0;
    const uintptr_t *next_words = (const uintptr_t *)next;
    if (next_words[1] == 0) return allow_outermost || next_words[0] == 0;
    if (!vigil_crash_is_return_address(map, next_words[1])) return 0;
    uintptr_t after = next_words[0];
    return after == 0 || (after > next && after <= high - size);
}

uint32_t vigil_crash_unwind(const vigil_memory_map *map, const vigil_crash_registers *registers,
                            vigil_stack_bounds fallback, uintptr_t *frames, uint32_t capacity, uint32_t *flags) {
    uint32_t reason = 0;
    if (frames == NULL || capacity == 0 || registers == NULL) {
        if (flags) *flags = VIGIL_WALK_TRUNCATED;
        return 0;
    }
    int have_map = map != NULL && map->mappings != NULL && map->count > 0;
    if (!have_map) {
        uint32_t walked = vigil_walk_frames(registers->pc, registers->has_fp ? registers->fp : 0, registers->sp,
                                            fallback, frames, capacity, &reason);
        if (flags) *flags = reason | VIGIL_UNWIND_NO_MAP;
        return walked;
    }

    vigil_stack_bounds bounds;
    if (!vigil_memory_map_stack_bounds(map, registers->sp, &bounds) &&
        !(registers->has_fp && vigil_memory_map_stack_bounds(map, registers->fp, &bounds))) {
        // A stack overflow leaves the stack pointer in the guard gap; the frame pointer usually
        // still points into the stack. Without either, only the PC is known.
        frames[0] = registers->pc;
        if (flags) *flags = VIGIL_WALK_OUT_OF_BOUNDS;
        return 1;
    }
    uint32_t count = 0;
    frames[count++] = registers->pc;
    uintptr_t low = registers->sp > bounds.low ? registers->sp : bounds.low;
    low = (low + sizeof(uintptr_t) - 1) & ~(uintptr_t)(sizeof(uintptr_t) - 1);
    const uintptr_t high = bounds.high;

#if defined(__aarch64__) || defined(__arm64__)
    // A leaf function keeps its return address in the link register, not in a record. (The
    // first record's return address, when the frame pointer holds a record, is the caller's.)
    uintptr_t fp_return = (registers->has_fp && vigil_record_is_valid(map, registers->fp, low, high, 1))
                              ? ((const uintptr_t *)registers->fp)[1] : 0;
    if (registers->has_lr && count < capacity && registers->lr != fp_return &&
        vigil_crash_is_return_address(map, registers->lr)) {
        frames[count++] = registers->lr;
        reason |= VIGIL_UNWIND_LINK_REGISTER;
    }
#endif

    // One pass up the stack from the stack pointer: the words that are plausible return
    // addresses consistent with the frame inside them are scanned frames (a leaf's return
    // address, the frames of code without frame pointers) until the first frame record. The
    // record is the frame-pointer register's when it checks out; otherwise the first slot that
    // holds a valid record whose return address is also consistent with the frame inside it (so
    // that a stale record-like pair in an uninitialised local is not taken for the chain).
    uintptr_t record = 0;
    int trusted = registers->has_fp && vigil_record_is_valid(map, registers->fp, low, high, 1);
    if (trusted) record = registers->fp;
    uintptr_t scan_end = trusted ? record : (high - low > VIGIL_RECORD_SEARCH_BYTES ? low + VIGIL_RECORD_SEARCH_BYTES : high);
    uint32_t scanned = 0;
    // The first valid record, consistent or not, and the frames found below it: the fallback when
    // no consistent record turns up (frames in between were unverifiable, e.g. reached through a
    // register call).
    uintptr_t first_valid = 0;
    uint32_t count_at_first_valid = 0;
    uint32_t scanned_at_first_valid = 0;
    for (uintptr_t slot = low; slot + sizeof(uintptr_t) <= scan_end && count < capacity; slot += sizeof(uintptr_t)) {
        if (!trusted && (slot & (VIGIL_RECORD_ALIGNMENT - 1)) == 0 && vigil_record_is_valid(map, slot, low, high, 0)) {
            if (first_valid == 0) {
                first_valid = slot;
                count_at_first_valid = count;
                scanned_at_first_valid = scanned;
            }
            uintptr_t record_return = ((const uintptr_t *)slot)[1];
            uintptr_t target = vigil_call_target(map, record_return);
            uintptr_t inner = frames[count - 1];
            int consistent = target == 0 || (target <= inner ? inner - target < VIGIL_FUNCTION_SIZE_MAX
                                                             : target - inner < VIGIL_TAIL_CALL_SLACK);
            if (consistent) {
                record = slot;
                reason |= VIGIL_UNWIND_RECORD_SEARCHED;
                break;
            }
        }
        if (scanned >= VIGIL_SCANNED_FRAMES_MAX) continue;
        uintptr_t word = *(const uintptr_t *)slot;
        if (word == frames[count - 1] || !vigil_crash_is_return_address(map, word)) continue;
        if (!vigil_scanned_frame_is_consistent(map, word, frames[count - 1], slot, low, scanned)) continue;
        frames[count++] = word;
        scanned++;
    }
    if (record == 0 && first_valid != 0) {
        record = first_valid;
        count = count_at_first_valid;
        scanned = scanned_at_first_valid;
        reason |= VIGIL_UNWIND_RECORD_SEARCHED;
    }
    if (scanned > 0) reason |= VIGIL_UNWIND_SCANNED;
    if (record == 0) {
        if (flags) *flags = reason | VIGIL_WALK_OUT_OF_BOUNDS;
        return count;
    }
    if (count == capacity) {
        if (flags) *flags = reason | VIGIL_WALK_TRUNCATED;
        return count;
    }
    // vigil_walk_frames writes its `pc` argument first: hand it the last frame so far, at the
    // last position, so that nothing is duplicated.
    uint32_t walk_reason = 0;
    uint32_t walked = vigil_walk_frames(frames[count - 1], record, record, bounds, &frames[count - 1],
                                        capacity - (count - 1), &walk_reason);
    if (flags) *flags = reason | walk_reason;
    return count - 1 + walked;
}

int vigil_crash_registers_from_ucontext(const void *ucontext, vigil_crash_registers *registers) {
    if (ucontext == NULL || registers == NULL) return 0;
    memset(registers, 0, sizeof *registers);
    const ucontext_t *context = (const ucontext_t *)ucontext;
#if defined(__linux__) && defined(__x86_64__)
    registers->pc = (uintptr_t)context->uc_mcontext.gregs[REG_RIP];
    registers->sp = (uintptr_t)context->uc_mcontext.gregs[REG_RSP];
    registers->fp = (uintptr_t)context->uc_mcontext.gregs[REG_RBP];
    registers->has_fp = 1;
    return 1;
#elif defined(__linux__) && defined(__aarch64__)
    registers->pc = (uintptr_t)context->uc_mcontext.pc;
    registers->sp = (uintptr_t)context->uc_mcontext.sp;
    registers->fp = (uintptr_t)context->uc_mcontext.regs[29];
    registers->lr = (uintptr_t)context->uc_mcontext.regs[30];
    registers->has_fp = 1;
    registers->has_lr = 1;
    return 1;
#else
    (void)context;
    return 0;
#endif
}
