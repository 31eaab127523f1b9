// vigil_crash_memory_map.h: the process's memory mappings as /proc/self/maps lists them, read at
// crash time into a table allocated at install, so that the crash handler reads memory only
// where a readable mapping says it may (stack frames, return-address candidates, the Swift
// runtime's message), and finds each thread's stack bounds from its stack pointer.
//
// The crash handler's internals; exposed for tests.
#ifndef VIGIL_CRASH_MEMORY_MAP_H
#define VIGIL_CRASH_MEMORY_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "vigil_stack_walk.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Permission bits of a mapping.
enum {
    VIGIL_MAPPING_READ = 1u << 0,
    VIGIL_MAPPING_WRITE = 1u << 1,
    VIGIL_MAPPING_EXECUTE = 1u << 2,
    /// The mapping is backed by a file (a non-zero inode).
    VIGIL_MAPPING_FILE = 1u << 3,
};

/// One line of /proc/self/maps.
typedef struct vigil_mapping {
    uintptr_t start;
    uintptr_t end;
    uint64_t inode;
    uint32_t flags;
    uint32_t reserved;
} vigil_mapping;

/// A table of mappings in caller-provided storage, sorted by address (the kernel lists them so).
typedef struct vigil_memory_map {
    vigil_mapping *mappings;
    uint32_t capacity;
    uint32_t count;
    /// Lines that did not fit (the table keeps the lowest addresses).
    uint32_t dropped;
    /// Lines that could not be parsed.
    uint32_t malformed;
    /// Parser state between chunks: the current line's bytes so far (a maps line's fields
    /// before the path fit in 128 bytes; the path itself is skipped).
    char line[128];
    uint32_t line_length;
    uint32_t line_overflow;
} vigil_memory_map;

/// Empties `map` for a new read. Async-signal-safe.
void vigil_memory_map_reset(vigil_memory_map *map);

/// Feeds the next `length` bytes of /proc/self/maps text; lines may span chunks. Async-signal-safe.
void vigil_memory_map_feed(vigil_memory_map *map, const char *bytes, size_t length);

/// Ends the input (parses a last line without a newline). Async-signal-safe.
void vigil_memory_map_finish(vigil_memory_map *map);

/// Reads /proc/self/maps into `map` with `scratch` (at least 256 bytes) as the read buffer.
/// Returns 0 or an errno value. Async-signal-safe (open, read, close).
int vigil_memory_map_read(vigil_memory_map *map, char *scratch, size_t scratch_capacity);

/// The mapping containing `address`, or NULL. Async-signal-safe.
const vigil_mapping *vigil_memory_map_find(const vigil_memory_map *map, uintptr_t address);

/// Whether `[address, address + length)` lies inside readable mappings. Async-signal-safe.
int vigil_memory_map_is_readable(const vigil_memory_map *map, uintptr_t address, size_t length);

/// The stack bounds around `address`: the readable, writable mapping containing it, extended
/// over adjacent readable-writable mappings. Returns 1 and sets `*bounds`, or 0. Async-signal-safe.
int vigil_memory_map_stack_bounds(const vigil_memory_map *map, uintptr_t address, vigil_stack_bounds *bounds);

#ifdef __cplusplus
}
#endif

#endif
