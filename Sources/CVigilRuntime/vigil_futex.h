// vigil_futex.h: the futex wait and wake the crash handler and the thread sampler block and
// signal each other with. Private to CVigilRuntime; Linux only. Both are async-signal-safe:
// one system call each, no allocation, no lock.
#ifndef VIGIL_FUTEX_H
#define VIGIL_FUTEX_H

#if defined(__linux__)

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/// Sleeps while `*word` equals `expected`, at most `timeout_ns`. Returns on a wake, on EAGAIN
/// (the word already differs), on EINTR and on the timeout alike: callers re-check their
/// condition in a loop.
static inline void vigil_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t timeout_ns) {
    struct timespec relative;
    relative.tv_sec = (time_t)(timeout_ns / 1000000000ull);
    relative.tv_nsec = (long)(timeout_ns % 1000000000ull);
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, &relative, NULL, 0);
}

/// Wakes up to `count` threads sleeping on `word` (INT_MAX wakes them all).
static inline void vigil_futex_wake(_Atomic uint32_t *word, int count) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

#endif

#endif
