// vigil_sample_probe.h: a memory probe with its own SIGSEGV/SIGBUS handler, the way language
// runtimes and garbage collectors probe memory: a read of a page that may be unmapped, and a
// handler that recovers from the fault when it hit that page. `vigil-sample crash --kind
// recovered` installs it before Vigil, so Vigil's handler runs first and must not take the
// recovered faults for crashes.
//
// C because recovering by `siglongjmp` needs `sigsetjmp`, which Swift cannot call (it returns
// twice). Sample code, not part of the SDK.
#ifndef VIGIL_SAMPLE_PROBE_H
#define VIGIL_SAMPLE_PROBE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How the probe's handler recovers from a fault on its page.
typedef enum vigil_sample_probe_recovery {
    /// `siglongjmp` back into `vigil_sample_probe_read`: the handler never returns.
    VIGIL_SAMPLE_PROBE_LONGJMP = 0,
    /// Makes the page readable and returns: the faulting read runs again and succeeds.
    VIGIL_SAMPLE_PROBE_FIX = 1,
    /// The System V style: a plain handler (no SA_SIGINFO, so it cannot see the address: it goes
    /// by "a probe is in progress") installed with SA_RESETHAND, which makes the page readable,
    /// installs itself again and returns.
    VIGIL_SAMPLE_PROBE_REARM = 2,
} vigil_sample_probe_recovery;

/// Maps the probe page (PROT_NONE) and installs the handler for SIGSEGV and SIGBUS with
/// SA_SIGINFO | SA_ONSTACK (REARM: SA_RESETHAND | SA_ONSTACK), keeping the previous actions. A fault anywhere else is declined: the
/// handler calls the previous handler, or restores the previous action (the default) and
/// returns, so that the fault happens again under it. Returns 0 or an errno value. Call once.
int vigil_sample_probe_install(vigil_sample_probe_recovery recovery);

/// With `abort_on_decline`, the handler calls abort(3) for a fault that is not the probe's
/// instead of handing it on: a crash inside the earlier handler. Call before the fault.
void vigil_sample_probe_set_abort_on_decline(int abort_on_decline);

/// Reads the probe page once (it is inaccessible before each read). Returns 1 when the read
/// faulted and the handler recovered, 0 when it read without a fault, -1 before install.
/// One thread at a time.
int vigil_sample_probe_read(void);

/// The probe page's address (0 before install).
uintptr_t vigil_sample_probe_address(void);

/// How many faults the handler recovered from, and how many it declined.
uint32_t vigil_sample_probe_recovered(void);
uint32_t vigil_sample_probe_declined(void);

#ifdef __cplusplus
}
#endif

#endif
