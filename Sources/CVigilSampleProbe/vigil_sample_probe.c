// See include/vigil_sample_probe.h. The handler uses only sigaction, mprotect and siglongjmp.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_sample_probe.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct {
    int installed;
    vigil_sample_probe_recovery recovery;
    uint8_t *page;
    size_t page_size;
    struct sigaction previous_segv;
    struct sigaction previous_bus;
    struct sigaction own;
    sigjmp_buf landing;
    volatile sig_atomic_t probing;
    int abort_on_decline;
    _Atomic uint32_t recovered;
    _Atomic uint32_t declined;
} vigil_probe;

// The fault is not the probe's: hand it on as if this handler had never been installed.
static void vigil_probe_decline(int signal_number, siginfo_t *info, void *context) {
    atomic_fetch_add(&vigil_probe.declined, 1);
    if (vigil_probe.abort_on_decline) abort();
    struct sigaction *previous = signal_number == SIGBUS ? &vigil_probe.previous_bus : &vigil_probe.previous_segv;
    if ((previous->sa_flags & SA_SIGINFO) != 0 && previous->sa_sigaction != NULL) {
        previous->sa_sigaction(signal_number, info, context);
        return;
    }
    if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
        previous->sa_handler(signal_number);
        return;
    }
    // The default action: restore it and return, the faulting instruction runs again and the
    // kernel ends the process with this signal.
    sigaction(signal_number, previous, NULL);
}

static void vigil_probe_handle(int signal_number, siginfo_t *info, void *context) {
    uintptr_t address = info != NULL ? (uintptr_t)info->si_addr : 0;
    uintptr_t page = (uintptr_t)vigil_probe.page;
    if (!vigil_probe.probing || page == 0 || address < page || address >= page + vigil_probe.page_size) {
        vigil_probe_decline(signal_number, info, context);
        return;
    }
    atomic_fetch_add(&vigil_probe.recovered, 1);
    if (vigil_probe.recovery == VIGIL_SAMPLE_PROBE_LONGJMP) siglongjmp(vigil_probe.landing, 1);
    mprotect(vigil_probe.page, vigil_probe.page_size, PROT_READ);
}

// REARM: a one-shot plain handler. The kernel reset the action to the default when it called it.
static void vigil_probe_handle_plain(int signal_number) {
    if (!vigil_probe.probing) {
        // Not the probe's: the action installed before this one goes back, and the fault runs
        // again into it (with its own siginfo, which this handler does not have to pass on).
        atomic_fetch_add(&vigil_probe.declined, 1);
        if (vigil_probe.abort_on_decline) abort();
        sigaction(signal_number, signal_number == SIGBUS ? &vigil_probe.previous_bus : &vigil_probe.previous_segv, NULL);
        return;
    }
    atomic_fetch_add(&vigil_probe.recovered, 1);
    mprotect(vigil_probe.page, vigil_probe.page_size, PROT_READ);
    sigaction(signal_number, &vigil_probe.own, NULL);
}

int vigil_sample_probe_install(vigil_sample_probe_recovery recovery) {
    if (vigil_probe.installed) return EALREADY;
    long page_size = sysconf(_SC_PAGESIZE);
    vigil_probe.page_size = page_size > 0 ? (size_t)page_size : 4096;
    void *page = mmap(NULL, vigil_probe.page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return errno;
    vigil_probe.page = page;
    vigil_probe.recovery = recovery;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    if (recovery == VIGIL_SAMPLE_PROBE_REARM) {
        action.sa_handler = vigil_probe_handle_plain;
        action.sa_flags = SA_RESETHAND | SA_ONSTACK;
    } else {
        action.sa_sigaction = vigil_probe_handle;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    }
    sigemptyset(&action.sa_mask);
    vigil_probe.own = action;
    if (sigaction(SIGSEGV, &action, &vigil_probe.previous_segv) != 0) return errno;
    if (sigaction(SIGBUS, &action, &vigil_probe.previous_bus) != 0) return errno;
    vigil_probe.installed = 1;
    return 0;
}

int vigil_sample_probe_read(void) {
    if (!vigil_probe.installed) return -1;
    uint32_t before = atomic_load(&vigil_probe.recovered);
    mprotect(vigil_probe.page, vigil_probe.page_size, PROT_NONE);
    if (sigsetjmp(vigil_probe.landing, 1) == 0) {
        vigil_probe.probing = 1;
        atomic_signal_fence(memory_order_seq_cst);
        (void)*(volatile uint8_t *)vigil_probe.page;
    }
    vigil_probe.probing = 0;
    atomic_signal_fence(memory_order_seq_cst);
    return atomic_load(&vigil_probe.recovered) != before ? 1 : 0;
}

void vigil_sample_probe_set_abort_on_decline(int abort_on_decline) { vigil_probe.abort_on_decline = abort_on_decline; }

uintptr_t vigil_sample_probe_address(void) { return (uintptr_t)vigil_probe.page; }

uint32_t vigil_sample_probe_recovered(void) { return atomic_load(&vigil_probe.recovered); }

uint32_t vigil_sample_probe_declined(void) { return atomic_load(&vigil_probe.declined); }
