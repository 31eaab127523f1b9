// SPSC activity ring. See include/vigil_activity_ring.h for the contract.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_activity_ring.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

struct vigil_activity_ring {
    uint32_t mask;
    vigil_activity_record *records;
    // Head and tail on their own cache lines: the producer writes one, the consumer the other.
    _Alignas(64) _Atomic uint64_t head;
    _Alignas(64) _Atomic uint64_t tail;
    _Alignas(64) _Atomic uint64_t dropped;
    _Atomic uint64_t latest_timestamp;
    _Atomic uint32_t latest_activity;
};

vigil_activity_ring *vigil_activity_ring_create(uint32_t capacity) {
    if (capacity == 0 || capacity > (1u << 20)) return NULL;
    uint32_t size = 2;
    while (size < capacity) size <<= 1;
    vigil_activity_ring *ring = aligned_alloc(64, (sizeof(vigil_activity_ring) + 63) / 64 * 64);
    vigil_activity_record *records = calloc(size, sizeof *records);
    if (ring == NULL || records == NULL) {
        free(ring);
        free(records);
        return NULL;
    }
    ring->mask = size - 1;
    ring->records = records;
    atomic_init(&ring->head, 0);
    atomic_init(&ring->tail, 0);
    atomic_init(&ring->dropped, 0);
    atomic_init(&ring->latest_timestamp, 0);
    atomic_init(&ring->latest_activity, 0);
    return ring;
}

void vigil_activity_ring_push(vigil_activity_ring *ring, uint32_t activity, uint64_t timestamp_ns) {
    if (ring == NULL) return;
    atomic_store_explicit(&ring->latest_activity, activity, memory_order_relaxed);
    atomic_store_explicit(&ring->latest_timestamp, timestamp_ns, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
    if (head - tail > ring->mask) {
        atomic_fetch_add_explicit(&ring->dropped, 1, memory_order_relaxed);
        return;
    }
    vigil_activity_record *slot = &ring->records[head & ring->mask];
    slot->timestamp_ns = timestamp_ns;
    slot->activity = activity;
    slot->reserved = 0;
    atomic_store_explicit(&ring->head, head + 1, memory_order_release);
}

uint32_t vigil_activity_ring_drain(vigil_activity_ring *ring, vigil_activity_record *out, uint32_t max) {
    if (ring == NULL || out == NULL) return 0;
    uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
    uint64_t available = head - tail;
    uint32_t count = available < max ? (uint32_t)available : max;
    for (uint32_t index = 0; index < count; index++) out[index] = ring->records[(tail + index) & ring->mask];
    atomic_store_explicit(&ring->tail, tail + count, memory_order_release);
    return count;
}

uint64_t vigil_activity_ring_dropped(const vigil_activity_ring *ring) {
    if (ring == NULL) return 0;
    return atomic_load_explicit(&((vigil_activity_ring *)ring)->dropped, memory_order_relaxed);
}

vigil_activity_record vigil_activity_ring_latest(const vigil_activity_ring *ring) {
    vigil_activity_record record = {0, 0, 0};
    if (ring == NULL) return record;
    vigil_activity_ring *mutable_ring = (vigil_activity_ring *)ring;
    record.activity = atomic_load_explicit(&mutable_ring->latest_activity, memory_order_relaxed);
    record.timestamp_ns = atomic_load_explicit(&mutable_ring->latest_timestamp, memory_order_relaxed);
    return record;
}

uint64_t vigil_monotonic_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

void vigil_activity_ring_destroy(vigil_activity_ring *ring) {
    if (ring == NULL) return;
    free(ring->records);
    free(ring);
}
