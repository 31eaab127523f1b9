// The crash-time stack walk. See include/vigil_crash_unwind.h for the contract.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_crash_unwind.h"

#include <signal.h>
#include <string.h>
#include <ucontext.h>

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

    // Where the first frame record is.
    uintptr_t record = 0;
    if (registers->has_fp && vigil_record_is_valid(map, registers->fp, low, high, 1)) {
        record = registers->fp;
    } else {
        uintptr_t limit = high - low > VIGIL_RECORD_SEARCH_BYTES ? low + VIGIL_RECORD_SEARCH_BYTES : high;
        uintptr_t candidate = (low + VIGIL_RECORD_ALIGNMENT - 1) & ~(uintptr_t)(VIGIL_RECORD_ALIGNMENT - 1);
        for (; candidate + 2 * sizeof(uintptr_t) <= limit; candidate += VIGIL_RECORD_ALIGNMENT) {
            if (vigil_record_is_valid(map, candidate, low, high, 0)) {
                record = candidate;
                reason |= VIGIL_UNWIND_RECORD_SEARCHED;
                break;
            }
        }
    }

    uintptr_t first_record_return = record != 0 ? ((const uintptr_t *)record)[1] : 0;
#if defined(__aarch64__) || defined(__arm64__)
    // A leaf function keeps its return address in the link register, not in a record.
    if (registers->has_lr && count < capacity && registers->lr != first_record_return &&
        vigil_crash_is_return_address(map, registers->lr)) {
        frames[count++] = registers->lr;
        reason |= VIGIL_UNWIND_LINK_REGISTER;
    }
#endif

    // Return addresses between the stack pointer and the first record: a leaf's return address
    // and the frames of code without frame pointers.
    uintptr_t scan_end = record != 0 ? record : (high - low > VIGIL_RECORD_SEARCH_BYTES ? low + VIGIL_RECORD_SEARCH_BYTES : high);
    uint32_t scanned = 0;
    for (uintptr_t slot = low; slot + sizeof(uintptr_t) <= scan_end && count < capacity && scanned < VIGIL_SCANNED_FRAMES_MAX;
         slot += sizeof(uintptr_t)) {
        uintptr_t word = *(const uintptr_t *)slot;
        if (word == frames[count - 1] || !vigil_crash_is_return_address(map, word)) continue;
        frames[count++] = word;
        scanned++;
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
    (void)first_record_return;
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
