// Signal-based thread sampling. See include/vigil_thread_sampler.h for the contract.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_thread_sampler.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vigil_activity_ring.h"
#include "vigil_futex.h"

enum {
    VIGIL_SAMPLER_IDLE = 0,
    VIGIL_SAMPLER_ARMED = 1,
    VIGIL_SAMPLER_WRITING = 2,
    VIGIL_SAMPLER_DONE = 3,
};

/// Upper bound on live samplers; the handler scans this table to validate the pointer it
/// receives, so it stays small.
#define VIGIL_SAMPLER_REGISTRY_SIZE 32
#define VIGIL_SAMPLER_MAX_FRAMES 4096u
/// Longest the requester spins before sleeping on the futex, and how often (in requests) a
/// requester whose spin budget fell to zero tries spinning again.
#define VIGIL_SAMPLER_MAX_SPIN_NS 50000ull
#define VIGIL_SAMPLER_SPIN_PROBE_PERIOD 64u

struct vigil_sampler {
    pthread_t target;
    vigil_stack_bounds bounds;
    uint32_t capacity;
    uintptr_t *frames;

    // Written by the handler, read by the requester after it sees DONE.
    uint32_t frame_count;
    uint32_t stop_reason;

    // A 32-bit word so that it can double as a futex.
    _Atomic uint32_t state;
    _Atomic uint32_t requesting;
    _Atomic uint32_t in_handler;
    // Set while the requester sleeps on the state futex, so that the handler makes the wake
    // syscall (an inter-processor interrupt in a VM) only when someone is asleep.
    _Atomic uint32_t requester_sleeping;

    _Atomic uint64_t requested;
    _Atomic uint64_t completed;
    _Atomic uint64_t timeouts;
    _Atomic uint64_t send_failures;
    _Atomic uint64_t coalesced;
    _Atomic uint64_t late_deliveries;
    _Atomic uint64_t truncated;
    _Atomic uint64_t signals_sent;
    _Atomic uint64_t signals_delivered;
    _Atomic uint64_t handler_nanoseconds;

    // Requester-only (guarded by `requesting`): the adaptive spin budget, see
    // vigil_sampler_sample.
    uint64_t spin_budget_ns;
    uint32_t requests_without_spin;
};

static _Atomic(vigil_sampler *) vigil_sampler_registry[VIGIL_SAMPLER_REGISTRY_SIZE];
static _Atomic int vigil_sampler_signal = 0;

int vigil_sampler_signal_number(void) { return atomic_load(&vigil_sampler_signal); }

vigil_stack_bounds vigil_sampler_stack_bounds(const vigil_sampler *sampler) {
    vigil_stack_bounds empty = {0, 0};
    return sampler ? sampler->bounds : empty;
}

void vigil_sampler_get_counters(const vigil_sampler *sampler, vigil_sampler_counters *counters) {
    if (sampler == NULL || counters == NULL) return;
    vigil_sampler *s = (vigil_sampler *)sampler;
    counters->requested = atomic_load(&s->requested);
    counters->completed = atomic_load(&s->completed);
    counters->timeouts = atomic_load(&s->timeouts);
    counters->send_failures = atomic_load(&s->send_failures);
    counters->coalesced = atomic_load(&s->coalesced);
    counters->late_deliveries = atomic_load(&s->late_deliveries);
    counters->truncated = atomic_load(&s->truncated);
    counters->signals_sent = atomic_load(&s->signals_sent);
    counters->signals_delivered = atomic_load(&s->signals_delivered);
    counters->handler_nanoseconds = atomic_load(&s->handler_nanoseconds);
}

#if defined(__linux__)

static inline void vigil_cpu_relax(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static int vigil_sampler_is_registered(const vigil_sampler *sampler) {
    for (int index = 0; index < VIGIL_SAMPLER_REGISTRY_SIZE; index++) {
        if (atomic_load(&vigil_sampler_registry[index]) == sampler) return 1;
    }
    return 0;
}

// Runs on the sampled thread, in the middle of whatever it was doing: atomics, a bounded
// walk inside the thread's own stack, and one futex syscall; errno is preserved.
static void vigil_sampler_handle_signal(int signal_number, siginfo_t *info, void *ucontext) {
    (void)signal_number;
    int saved_errno = errno;
    if (info == NULL || info->si_code != SI_QUEUE || info->si_pid != getpid()) goto out;
    vigil_sampler *sampler = (vigil_sampler *)info->si_value.sival_ptr;
    if (sampler == NULL || !vigil_sampler_is_registered(sampler)) goto out;

    // in_handler goes up before signals_delivered so that destroy, having seen every sent
    // signal delivered, only has to wait for in_handler to drop to zero.
    atomic_fetch_add(&sampler->in_handler, 1);
    atomic_fetch_add(&sampler->signals_delivered, 1);
    uint64_t entered = vigil_monotonic_now_ns();
    uint32_t expected = VIGIL_SAMPLER_ARMED;
    if (pthread_equal(pthread_self(), sampler->target) &&
        atomic_compare_exchange_strong(&sampler->state, &expected, VIGIL_SAMPLER_WRITING)) {
        uint32_t reason = 0;
        sampler->frame_count = vigil_walk_ucontext(ucontext, sampler->bounds, sampler->frames,
                                                   sampler->capacity, &reason);
        sampler->stop_reason = reason;
        atomic_store(&sampler->state, VIGIL_SAMPLER_DONE);
        if (atomic_load(&sampler->requester_sleeping)) vigil_futex_wake(&sampler->state, 1);
    } else {
        atomic_fetch_add(&sampler->late_deliveries, 1);
    }
    atomic_fetch_add(&sampler->handler_nanoseconds, vigil_monotonic_now_ns() - entered);
    atomic_fetch_sub(&sampler->in_handler, 1);
out:
    errno = saved_errno;
}

static pthread_mutex_t vigil_sampler_install_lock = PTHREAD_MUTEX_INITIALIZER;

static int vigil_sampler_install_handler(void) {
    pthread_mutex_lock(&vigil_sampler_install_lock);
    int chosen = atomic_load(&vigil_sampler_signal);
    if (chosen == 0) {
        // From the top down: libraries that take real-time signals usually start at SIGRTMIN.
        for (int candidate = SIGRTMAX - 1; candidate > SIGRTMIN; candidate--) {
            struct sigaction current;
            if (sigaction(candidate, NULL, &current) != 0) continue;
            if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_sigaction = vigil_sampler_handle_signal;
            action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
            sigemptyset(&action.sa_mask);
            if (sigaction(candidate, &action, NULL) == 0) {
                chosen = candidate;
                atomic_store(&vigil_sampler_signal, chosen);
                break;
            }
        }
    }
    pthread_mutex_unlock(&vigil_sampler_install_lock);
    return chosen;
}

vigil_sampler *vigil_sampler_create(pthread_t target, uint32_t max_frames, int *error) {
    if (max_frames == 0 || max_frames > VIGIL_SAMPLER_MAX_FRAMES) {
        if (error) *error = EINVAL;
        return NULL;
    }
    if (vigil_sampler_install_handler() == 0) {
        if (error) *error = EBUSY;
        return NULL;
    }
    vigil_sampler *sampler = calloc(1, sizeof *sampler);
    uintptr_t *frames = calloc(max_frames, sizeof *frames);
    if (sampler == NULL || frames == NULL) {
        free(sampler);
        free(frames);
        if (error) *error = ENOMEM;
        return NULL;
    }
    int status = vigil_thread_stack_bounds(target, &sampler->bounds);
    if (status != 0) {
        free(sampler);
        free(frames);
        if (error) *error = status;
        return NULL;
    }
    sampler->target = target;
    sampler->spin_budget_ns = VIGIL_SAMPLER_MAX_SPIN_NS;
    sampler->capacity = max_frames;
    sampler->frames = frames;
    atomic_init(&sampler->state, VIGIL_SAMPLER_IDLE);
    for (int index = 0; index < VIGIL_SAMPLER_REGISTRY_SIZE; index++) {
        vigil_sampler *empty = NULL;
        if (atomic_compare_exchange_strong(&vigil_sampler_registry[index], &empty, sampler)) {
            if (error) *error = 0;
            return sampler;
        }
    }
    free(sampler);
    free(frames);
    if (error) *error = EAGAIN;
    return NULL;
}

// Waits while the state is `from` (ARMED or WRITING), at most until `deadline_ns`: spins for
// up to `spin_ns`, then sleeps on the futex. `*answered_while_spinning` (may be NULL) tells
// whether the state changed during the spin.
static uint32_t vigil_sampler_wait_while(vigil_sampler *sampler, uint32_t from, uint64_t deadline_ns,
                                         uint64_t spin_ns, int *answered_while_spinning) {
    uint64_t spin_until = vigil_monotonic_now_ns() + spin_ns;
    if (answered_while_spinning) *answered_while_spinning = 0;
    while (1) {
        uint32_t state = atomic_load(&sampler->state);
        uint64_t now = vigil_monotonic_now_ns();
        if (state != from) {
            if (answered_while_spinning && now < spin_until) *answered_while_spinning = 1;
            return state;
        }
        if (now >= deadline_ns) return state;
        if (now < spin_until) {
            vigil_cpu_relax();
            continue;
        }
        // Announce the sleep before re-checking the state (both sequentially consistent): a
        // handler that stores DONE after this sees the flag and wakes us, and one that stored
        // it before makes the futex return at once because the word no longer equals `from`.
        atomic_store(&sampler->requester_sleeping, 1);
        vigil_futex_wait(&sampler->state, from, deadline_ns - now);
        atomic_store(&sampler->requester_sleeping, 0);
    }
}

vigil_sample_status vigil_sampler_sample(vigil_sampler *sampler, uintptr_t *frames, uint32_t capacity,
                                         uint32_t *count, uint32_t *stop_reason, uint64_t timeout_ns,
                                         uint64_t *latency_ns) {
    if (count) *count = 0;
    if (sampler == NULL || frames == NULL || count == NULL || timeout_ns == 0) return VIGIL_SAMPLE_INVALID;
    if (pthread_equal(pthread_self(), sampler->target)) return VIGIL_SAMPLE_INVALID;
    uint32_t not_requesting = 0;
    if (!atomic_compare_exchange_strong(&sampler->requesting, &not_requesting, 1)) return VIGIL_SAMPLE_BUSY;
    atomic_fetch_add(&sampler->requested, 1);
    uint64_t started = vigil_monotonic_now_ns();
    vigil_sample_status result;

    // A handler that was still writing when an earlier request gave up finishes first.
    uint32_t state = atomic_load(&sampler->state);
    if (state == VIGIL_SAMPLER_WRITING) {
        state = vigil_sampler_wait_while(sampler, VIGIL_SAMPLER_WRITING, started + timeout_ns, 0, NULL);
        if (state == VIGIL_SAMPLER_WRITING) {
            atomic_fetch_add(&sampler->timeouts, 1);
            result = VIGIL_SAMPLE_TIMEOUT;
            goto release;
        }
    }
    atomic_store(&sampler->state, VIGIL_SAMPLER_ARMED);

    uint64_t sent = atomic_load(&sampler->signals_sent);
    uint64_t delivered = atomic_load(&sampler->signals_delivered);
    if (sent == delivered) {
        atomic_fetch_add(&sampler->signals_sent, 1);
        union sigval value;
        value.sival_ptr = sampler;
        int status = pthread_sigqueue(sampler->target, atomic_load(&vigil_sampler_signal), value);
        if (status != 0) {
            atomic_fetch_sub(&sampler->signals_sent, 1);
            atomic_store(&sampler->state, VIGIL_SAMPLER_IDLE);
            atomic_fetch_add(&sampler->send_failures, 1);
            result = VIGIL_SAMPLE_SEND_FAILED;
            goto release;
        }
    } else {
        // The previous signal is still pending on the target (it blocks the signal, or has
        // not been scheduled since): when it is handled it answers this request. Sending
        // another would only grow the kernel's queue of pending real-time signals.
        atomic_fetch_add(&sampler->coalesced, 1);
    }

    // Adaptive spin. When the target runs on another CPU, its answer arrives within tens of
    // microseconds and spinning for it beats a futex sleep and wake-up. When it shares this
    // CPU (a busy machine), spinning only delays it: the answer never comes during the spin.
    // So the budget is kept while spins succeed and dropped to zero when one fails; then a spin
    // is retried every 64 requests (under 2% of them pay for a failed probe) in case the
    // machine got quieter.
    uint64_t spin = sampler->spin_budget_ns;
    if (spin == 0 && ++sampler->requests_without_spin >= VIGIL_SAMPLER_SPIN_PROBE_PERIOD) {
        sampler->requests_without_spin = 0;
        spin = VIGIL_SAMPLER_MAX_SPIN_NS;
    }
    int answered_while_spinning = 0;
    uint64_t deadline = started + timeout_ns;
    state = vigil_sampler_wait_while(sampler, VIGIL_SAMPLER_ARMED, deadline, spin, &answered_while_spinning);
    if (spin > 0) {
        sampler->spin_budget_ns = answered_while_spinning ? VIGIL_SAMPLER_MAX_SPIN_NS : 0;
    }
    if (state == VIGIL_SAMPLER_ARMED) {
        uint32_t expected = VIGIL_SAMPLER_ARMED;
        if (atomic_compare_exchange_strong(&sampler->state, &expected, VIGIL_SAMPLER_IDLE)) {
            atomic_fetch_add(&sampler->timeouts, 1);
            result = VIGIL_SAMPLE_TIMEOUT;
            goto release;
        }
        state = expected;
    }
    if (state == VIGIL_SAMPLER_WRITING) {
        // The handler took the request just as it expired; its walk is bounded, so grant it
        // one more timeout before giving up (the next request then discards its result).
        state = vigil_sampler_wait_while(sampler, VIGIL_SAMPLER_WRITING, deadline + timeout_ns, 0, NULL);
        if (state == VIGIL_SAMPLER_WRITING) {
            atomic_fetch_add(&sampler->timeouts, 1);
            result = VIGIL_SAMPLE_TIMEOUT;
            goto release;
        }
    }
    // DONE: the handler's plain writes happened before its atomic store of DONE.
    uint32_t copied = sampler->frame_count < capacity ? sampler->frame_count : capacity;
    memcpy(frames, sampler->frames, (size_t)copied * sizeof *frames);
    *count = copied;
    uint32_t reason = sampler->stop_reason;
    if (copied < sampler->frame_count) reason |= VIGIL_WALK_TRUNCATED;
    if (reason & VIGIL_WALK_TRUNCATED) atomic_fetch_add(&sampler->truncated, 1);
    if (stop_reason) *stop_reason = reason;
    if (latency_ns) *latency_ns = vigil_monotonic_now_ns() - started;
    atomic_store(&sampler->state, VIGIL_SAMPLER_IDLE);
    atomic_fetch_add(&sampler->completed, 1);
    result = VIGIL_SAMPLE_OK;

release:
    atomic_store(&sampler->requesting, 0);
    return result;
}

int vigil_sampler_unblock_signal_on_current_thread(void) {
    int signal_number = atomic_load(&vigil_sampler_signal);
    if (signal_number == 0) return EINVAL;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal_number);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

void vigil_sampler_destroy(vigil_sampler *sampler) {
    if (sampler == NULL) return;
    for (int index = 0; index < VIGIL_SAMPLER_REGISTRY_SIZE; index++) {
        vigil_sampler *expected = sampler;
        atomic_compare_exchange_strong(&vigil_sampler_registry[index], &expected, NULL);
    }
    // Once unregistered, a handler that has not started yet ignores the pointer. One that
    // started counted itself in in_handler before signals_delivered.
    if (atomic_load(&sampler->signals_delivered) != atomic_load(&sampler->signals_sent)) {
        return;  // Kept on purpose: a pending signal still names this memory.
    }
    for (int spins = 0; atomic_load(&sampler->in_handler) != 0; spins++) {
        if (spins > 100000) return;  // Never wait forever; keeping the memory is safe.
        sched_yield();
    }
    free(sampler->frames);
    free(sampler);
}

#else  // Not Linux: Darwin samples with thread_suspend/thread_get_state instead.

vigil_sampler *vigil_sampler_create(pthread_t target, uint32_t max_frames, int *error) {
    (void)target; (void)max_frames;
    if (error) *error = ENOTSUP;
    return NULL;
}

vigil_sample_status vigil_sampler_sample(vigil_sampler *sampler, uintptr_t *frames, uint32_t capacity,
                                         uint32_t *count, uint32_t *stop_reason, uint64_t timeout_ns,
                                         uint64_t *latency_ns) {
    (void)sampler; (void)frames; (void)capacity; (void)stop_reason; (void)timeout_ns; (void)latency_ns;
    if (count) *count = 0;
    return VIGIL_SAMPLE_INVALID;
}

int vigil_sampler_unblock_signal_on_current_thread(void) { return ENOTSUP; }

void vigil_sampler_destroy(vigil_sampler *sampler) { (void)sampler; }

#endif
