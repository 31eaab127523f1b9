// Apple-platform thread access with kernel calls only. See include/vigil_darwin_thread.h.
#include "vigil_darwin_thread.h"

#include <errno.h>
#include <string.h>

#include "vigil_crash_unwind.h"

#if defined(__APPLE__)

#include <mach/mach.h>
#include <pthread.h>
#include <sys/ucontext.h>

vigil_darwin_registers vigil_darwin_thread_registers(uint32_t thread) {
    vigil_darwin_registers registers = {0, 0, 0, 0, 0};
#if defined(__arm64__)
    arm_thread_state64_t state;
    mach_msg_type_number_t count = ARM_THREAD_STATE64_COUNT;
    if (thread_get_state((thread_act_t)thread, ARM_THREAD_STATE64, (thread_state_t)&state, &count) == KERN_SUCCESS) {
        registers.pc = (uintptr_t)arm_thread_state64_get_pc(state);
        registers.fp = (uintptr_t)arm_thread_state64_get_fp(state);
        registers.sp = (uintptr_t)arm_thread_state64_get_sp(state);
        registers.lr = (uintptr_t)arm_thread_state64_get_lr(state);
        registers.ok = 1;
    }
#elif defined(__x86_64__)
    x86_thread_state64_t state;
    mach_msg_type_number_t count = x86_THREAD_STATE64_COUNT;
    if (thread_get_state((thread_act_t)thread, x86_THREAD_STATE64, (thread_state_t)&state, &count) == KERN_SUCCESS) {
        registers.pc = (uintptr_t)state.__rip;
        registers.fp = (uintptr_t)state.__rbp;
        registers.sp = (uintptr_t)state.__rsp;
        registers.ok = 1;
    }
#else
    (void)thread;
#endif
    return registers;
}

vigil_darwin_registers vigil_darwin_ucontext_registers(const void *ucontext) {
    vigil_darwin_registers registers = {0, 0, 0, 0, 0};
    const ucontext_t *context = (const ucontext_t *)ucontext;
    if (context == NULL || context->uc_mcontext == NULL) return registers;
#if defined(__arm64__)
    registers.pc = (uintptr_t)__darwin_arm_thread_state64_get_pc(context->uc_mcontext->__ss);
    registers.fp = (uintptr_t)__darwin_arm_thread_state64_get_fp(context->uc_mcontext->__ss);
    registers.sp = (uintptr_t)__darwin_arm_thread_state64_get_sp(context->uc_mcontext->__ss);
    registers.lr = (uintptr_t)__darwin_arm_thread_state64_get_lr(context->uc_mcontext->__ss);
    registers.ok = 1;
#elif defined(__x86_64__)
    registers.pc = (uintptr_t)context->uc_mcontext->__ss.__rip;
    registers.fp = (uintptr_t)context->uc_mcontext->__ss.__rbp;
    registers.sp = (uintptr_t)context->uc_mcontext->__ss.__rsp;
    registers.ok = 1;
#endif
    return registers;
}

// The region that holds `address` or, when none does, the next one above it.
static int vigil_darwin_region(uintptr_t address, vm_address_t *start, vm_size_t *size, vm_prot_t *protection) {
    vm_address_t region = (vm_address_t)address;
    vm_size_t region_size = 0;
    vm_region_basic_info_data_64_t info;
    mach_msg_type_number_t count = VM_REGION_BASIC_INFO_COUNT_64;
    mach_port_t object = MACH_PORT_NULL;
    if (vm_region_64(mach_task_self(), &region, &region_size, VM_REGION_BASIC_INFO_64, (vm_region_info_t)&info, &count,
                     &object) != KERN_SUCCESS) {
        return 0;
    }
    *start = region;
    *size = region_size;
    *protection = info.protection;
    return 1;
}

vigil_stack_bounds vigil_darwin_stack_bounds(uintptr_t sp) {
    vigil_stack_bounds bounds = {0, 0};
    if (sp == 0) return bounds;
    vm_address_t start = 0;
    vm_size_t size = 0;
    vm_prot_t protection = 0;
    if (!vigil_darwin_region(sp, &start, &size, &protection)) return bounds;
    if (start <= sp && sp - start < size && (protection & VM_PROT_READ) == 0) {
        // The guard page below a stack that overflowed: the frames are in the region above.
        if (!vigil_darwin_region((uintptr_t)(start + size), &start, &size, &protection)) return bounds;
    }
    if ((protection & VM_PROT_READ) == 0 || start + size <= sp) return bounds;
    bounds.low = (uintptr_t)start;
    bounds.high = (uintptr_t)(start + size);
    return bounds;
}

uint32_t vigil_darwin_thread_name(uint32_t thread, char *name, uint32_t capacity) {
    if (name == NULL || capacity == 0) return 0;
    name[0] = 0;
    thread_extended_info_data_t info;
    mach_msg_type_number_t count = THREAD_EXTENDED_INFO_COUNT;
    if (thread_info((thread_act_t)thread, THREAD_EXTENDED_INFO, (thread_info_t)&info, &count) != KERN_SUCCESS) return 0;
    uint32_t length = (uint32_t)strnlen(info.pth_name, sizeof info.pth_name);
    if (length >= capacity) length = capacity - 1;
    memcpy(name, info.pth_name, length);
    name[length] = 0;
    return length;
}

uint32_t vigil_darwin_walk_registers(const vigil_darwin_registers *registers, vigil_stack_bounds bounds,
                                     uintptr_t *frames, uint32_t capacity, uint32_t *flags) {
    uint32_t reason = 0;
    if (registers == NULL || !registers->ok) {
        if (flags) *flags = VIGIL_UNWIND_NO_REGISTERS;
        return 0;
    }
    uint32_t count = vigil_walk_frames(registers->pc, registers->fp, registers->sp, bounds, frames, capacity, &reason);
#if defined(__arm64__)
    int inserted = 0;
    count = vigil_walk_insert_link_register(frames, count, capacity, registers->lr, &inserted);
    if (inserted) reason |= VIGIL_UNWIND_LINK_REGISTER;
#endif
    if (flags) *flags = reason;
    return count;
}

int vigil_darwin_sample_thread(uint32_t thread, vigil_stack_bounds bounds, uintptr_t *frames, uint32_t capacity,
                               uint32_t *count, uint32_t *stop_reason) {
    if (count) *count = 0;
    if (stop_reason) *stop_reason = 0;
    if (frames == NULL || capacity == 0) return EINVAL;
    // pthread_mach_thread_np on the calling thread reads its own structure (no list lock).
    if ((thread_act_t)thread == pthread_mach_thread_np(pthread_self())) return EDEADLK;
    if (thread_suspend((thread_act_t)thread) != KERN_SUCCESS) return ESRCH;
    // Between suspend and resume: Mach traps and the walker only (the target may hold any lock).
    vigil_darwin_registers registers = vigil_darwin_thread_registers(thread);
    uint32_t flags = 0;
    uint32_t walked = registers.ok ? vigil_darwin_walk_registers(&registers, bounds, frames, capacity, &flags) : 0;
    thread_resume((thread_act_t)thread);
    if (!registers.ok) return EIO;
    if (count) *count = walked;
    if (stop_reason) *stop_reason = flags;
    return 0;
}

#else  // Not an Apple platform.

vigil_darwin_registers vigil_darwin_thread_registers(uint32_t thread) {
    (void)thread;
    vigil_darwin_registers registers = {0, 0, 0, 0, 0};
    return registers;
}

vigil_darwin_registers vigil_darwin_ucontext_registers(const void *ucontext) {
    (void)ucontext;
    vigil_darwin_registers registers = {0, 0, 0, 0, 0};
    return registers;
}

vigil_stack_bounds vigil_darwin_stack_bounds(uintptr_t sp) {
    (void)sp;
    vigil_stack_bounds bounds = {0, 0};
    return bounds;
}

uint32_t vigil_darwin_thread_name(uint32_t thread, char *name, uint32_t capacity) {
    (void)thread;
    if (name != NULL && capacity > 0) name[0] = 0;
    return 0;
}

uint32_t vigil_darwin_walk_registers(const vigil_darwin_registers *registers, vigil_stack_bounds bounds,
                                     uintptr_t *frames, uint32_t capacity, uint32_t *flags) {
    (void)registers;
    (void)bounds;
    (void)frames;
    (void)capacity;
    if (flags) *flags = VIGIL_WALK_UNSUPPORTED;
    return 0;
}

int vigil_darwin_sample_thread(uint32_t thread, vigil_stack_bounds bounds, uintptr_t *frames, uint32_t capacity,
                               uint32_t *count, uint32_t *stop_reason) {
    (void)thread;
    (void)bounds;
    (void)frames;
    (void)capacity;
    if (count) *count = 0;
    if (stop_reason) *stop_reason = VIGIL_WALK_UNSUPPORTED;
    return ENOTSUP;
}

#endif
