// vigil_thread_sampler.h: samples another thread's stack by signalling it (Linux).
//
// The sampler sends a dedicated real-time signal to the target thread with
// `pthread_sigqueue`; the handler, running on the target, walks the frame pointers of the
// interrupted context into a buffer allocated at install and publishes completion through a
// C11 atomic (and a futex wake, so the requester sleeps instead of spinning). The requester
// waits with a timeout: a thread that blocks the signal, or never gets scheduled, makes the
// request time out and be counted, never hang.
//
// Darwin does not need a signal: it suspends the thread (`thread_suspend`), reads its
// registers (`thread_get_state`) and walks with `vigil_walk_frames` (VigilRuntime's Darwin
// adapter does that); this unit is compiled there but `vigil_sampler_create` reports ENOTSUP.
#ifndef VIGIL_THREAD_SAMPLER_H
#define VIGIL_THREAD_SAMPLER_H

#include <stdint.h>
#include <pthread.h>

#include "vigil_stack_walk.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A sampler bound to one target thread. Opaque; create with `vigil_sampler_create`.
typedef struct vigil_sampler vigil_sampler;

/// What one sample request came to.
typedef enum vigil_sample_status {
    /// The handler ran on the target and the stack was copied out.
    VIGIL_SAMPLE_OK = 0,
    /// The target did not answer within the timeout (it blocks the signal, or is not
    /// scheduled); the request was withdrawn and counted.
    VIGIL_SAMPLE_TIMEOUT = 1,
    /// Another request on this sampler is in progress (requests are meant to come from one
    /// thread); nothing was sent.
    VIGIL_SAMPLE_BUSY = 2,
    /// The signal could not be sent (the thread exited, or the queue of pending signals is
    /// full).
    VIGIL_SAMPLE_SEND_FAILED = 3,
    /// Bad arguments.
    VIGIL_SAMPLE_INVALID = 4,
} vigil_sample_status;

/// Running totals of a sampler, for the SDK's "what was dropped" counters.
typedef struct vigil_sampler_counters {
    /// Requests made.
    uint64_t requested;
    /// Requests answered with a stack.
    uint64_t completed;
    /// Requests that timed out.
    uint64_t timeouts;
    /// Signals that could not be sent.
    uint64_t send_failures;
    /// Requests that did not send a new signal because an earlier one was still pending on
    /// the target (so a thread that blocks the signal does not pile up queued signals).
    uint64_t coalesced;
    /// Signals handled when no request was waiting (they arrived after a timeout).
    uint64_t late_deliveries;
    /// Samples whose walk filled the buffer.
    uint64_t truncated;
    /// Signals sent, and signals that reached the handler.
    uint64_t signals_sent;
    uint64_t signals_delivered;
    /// Time the target thread spent inside the handler (walk and bookkeeping, not the
    /// kernel's signal delivery), summed over every handled signal, in nanoseconds.
    uint64_t handler_nanoseconds;
} vigil_sampler_counters;

/// Creates a sampler for `target`, able to record `max_frames` addresses per sample.
///
/// The first sampler of the process picks a free real-time signal (the highest in
/// `SIGRTMIN+1 … SIGRTMAX-1` whose handler is still the default) and installs its handler
/// with `SA_SIGINFO | SA_RESTART | SA_ONSTACK`; later samplers share it. Also reads the
/// target's stack bounds. Returns NULL and sets `*error` (may be NULL) to an errno value on
/// failure: EINVAL, ENOMEM, EBUSY (no free signal), ENOTSUP (not Linux).
///
/// NOT async-signal-safe (allocates, installs a handler, reads /proc): call at install time.
vigil_sampler *vigil_sampler_create(pthread_t target, uint32_t max_frames, int *error);

/// Takes one sample of the target thread's stack.
///
/// Copies at most `capacity` addresses (innermost first, see `vigil_walk_frames`) into
/// `frames`, sets `*count`, `*stop_reason` (VIGIL_WALK_* flags, may be NULL) and
/// `*latency_ns` (request to answer, may be NULL), and waits at most `timeout_ns`. Never
/// blocks longer than about twice the timeout. Must not be called from the target thread
/// (that would time out: the handler cannot run while its own thread waits).
///
/// NOT async-signal-safe (it sleeps on a futex); thread-safe against concurrent callers,
/// which get VIGIL_SAMPLE_BUSY.
vigil_sample_status vigil_sampler_sample(vigil_sampler *sampler, uintptr_t *frames, uint32_t capacity,
                                         uint32_t *count, uint32_t *stop_reason, uint64_t timeout_ns,
                                         uint64_t *latency_ns);

/// Unblocks the samplers' signal on the calling thread (a thread inherits its creator's signal
/// mask, and a process its parent's: a process started from a thread that blocks real-time
/// signals would otherwise never answer). Call on the thread to be sampled, after
/// `vigil_sampler_create`. Returns 0 or an errno value (EINVAL before any sampler exists).
///
/// Async-signal-safe (`pthread_sigmask`).
int vigil_sampler_unblock_signal_on_current_thread(void);

/// Copies the sampler's running totals into `*counters`. Async-signal-safe (atomic loads).
void vigil_sampler_get_counters(const vigil_sampler *sampler, vigil_sampler_counters *counters);

/// The real-time signal number the process's samplers use, or 0 before the first
/// `vigil_sampler_create`. Async-signal-safe.
int vigil_sampler_signal_number(void);

/// The stack bounds the sampler validates frame pointers against. Async-signal-safe.
vigil_stack_bounds vigil_sampler_stack_bounds(const vigil_sampler *sampler);

/// Releases the sampler. If a signal sent to the target has not been handled yet, the
/// sampler's memory is deliberately kept (a few hundred bytes plus the frame buffer) so that
/// the late handler never touches freed memory. The signal handler stays installed.
///
/// NOT async-signal-safe. Must not race with `vigil_sampler_sample` on the same sampler.
void vigil_sampler_destroy(vigil_sampler *sampler);

#ifdef __cplusplus
}
#endif

#endif
