// vigil_activity_ring.h: a wait-free single-producer/single-consumer ring of timestamped
// run-loop activities, so that the main thread hands its observations to the monitoring
// queue without a lock, an allocation or a dispatch.
//
// The producer (the run-loop observer, on the main thread) never waits: when the ring is
// full the record is dropped and counted. The consumer (the monitoring queue) drains in order.
// The last pushed record is also kept in its own atomic words, so that a signal handler (the
// crash handler of a later issue) can tell what the main thread was doing.
#ifndef VIGIL_ACTIVITY_RING_H
#define VIGIL_ACTIVITY_RING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One observation: an activity code (the caller's encoding, e.g. CFRunLoopActivity bits) and
/// a monotonic timestamp in nanoseconds.
typedef struct vigil_activity_record {
    uint64_t timestamp_ns;
    uint32_t activity;
    uint32_t reserved;
} vigil_activity_record;

/// The ring. Opaque; create with `vigil_activity_ring_create`.
typedef struct vigil_activity_ring vigil_activity_ring;

/// Creates a ring holding `capacity` records, rounded up to a power of two (at least 2, at
/// most 1 << 20). Returns NULL when memory is short or `capacity` is 0.
///
/// NOT async-signal-safe (allocates).
vigil_activity_ring *vigil_activity_ring_create(uint32_t capacity);

/// Appends one record; drops it and counts the drop when the ring is full. Call from one
/// producer thread only.
///
/// Async-signal-safe and wait-free.
void vigil_activity_ring_push(vigil_activity_ring *ring, uint32_t activity, uint64_t timestamp_ns);

/// Moves up to `max` of the oldest records into `out` and returns how many. Call from one
/// consumer thread only.
///
/// Async-signal-safe and wait-free.
uint32_t vigil_activity_ring_drain(vigil_activity_ring *ring, vigil_activity_record *out, uint32_t max);

/// Records dropped because the ring was full, since creation. Async-signal-safe.
uint64_t vigil_activity_ring_dropped(const vigil_activity_ring *ring);

/// The most recently pushed record (zeros before the first push). The two words are read
/// separately, so a concurrent push may pair an activity with its neighbour's timestamp.
/// Async-signal-safe.
vigil_activity_record vigil_activity_ring_latest(const vigil_activity_ring *ring);

/// The current CLOCK_MONOTONIC reading in nanoseconds (what the run-loop observer stamps).
/// Async-signal-safe (`clock_gettime` is).
uint64_t vigil_monotonic_now_ns(void);

/// Frees the ring. The producer and consumer must have stopped. NOT async-signal-safe.
void vigil_activity_ring_destroy(vigil_activity_ring *ring);

#ifdef __cplusplus
}
#endif

#endif
