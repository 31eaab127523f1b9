// The crash-time memory map. See include/vigil_crash_memory_map.h for the contract.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_crash_memory_map.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

void vigil_memory_map_reset(vigil_memory_map *map) {
    if (map == NULL) return;
    map->count = 0;
    map->dropped = 0;
    map->malformed = 0;
    map->line_length = 0;
    map->line_overflow = 0;
}

static int vigil_hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Parses hex digits at `*cursor` up to a non-digit; fails on no digits or more than 16.
static int vigil_parse_hex(const char **cursor, const char *end, uint64_t *value) {
    const char *p = *cursor;
    uint64_t result = 0;
    int digits = 0;
    while (p < end && vigil_hex_digit(*p) >= 0) {
        if (++digits > 16) return 0;
        result = (result << 4) | (uint64_t)vigil_hex_digit(*p);
        p++;
    }
    if (digits == 0) return 0;
    *cursor = p;
    *value = result;
    return 1;
}

static int vigil_parse_decimal(const char **cursor, const char *end, uint64_t *value) {
    const char *p = *cursor;
    uint64_t result = 0;
    int digits = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (++digits > 20) return 0;
        result = result * 10 + (uint64_t)(*p - '0');
        p++;
    }
    if (digits == 0) return 0;
    *cursor = p;
    *value = result;
    return 1;
}

static int vigil_skip_spaces(const char **cursor, const char *end) {
    const char *p = *cursor;
    if (p >= end || *p != ' ') return 0;
    while (p < end && *p == ' ') p++;
    *cursor = p;
    return 1;
}

// "start-end perms offset dev inode [path]"; the path is not needed.
static void vigil_parse_line(vigil_memory_map *map, const char *line, size_t length) {
    if (length == 0) return;
    const char *p = line;
    const char *end = line + length;
    uint64_t start, stop, offset, inode, ignored;
    int ok = vigil_parse_hex(&p, end, &start) && p < end && *p++ == '-' && vigil_parse_hex(&p, end, &stop) &&
             vigil_skip_spaces(&p, end) && end - p >= 4;
    uint32_t flags = 0;
    if (ok) {
        if (p[0] == 'r') flags |= VIGIL_MAPPING_READ;
        if (p[1] == 'w') flags |= VIGIL_MAPPING_WRITE;
        if (p[2] == 'x') flags |= VIGIL_MAPPING_EXECUTE;
        p += 4;
        ok = vigil_skip_spaces(&p, end) && vigil_parse_hex(&p, end, &offset) && vigil_skip_spaces(&p, end) &&
             vigil_parse_hex(&p, end, &ignored) && p < end && *p++ == ':' && vigil_parse_hex(&p, end, &ignored) &&
             vigil_skip_spaces(&p, end) && vigil_parse_decimal(&p, end, &inode);
    }
    if (!ok || stop <= start) {
        map->malformed++;
        return;
    }
    (void)offset;
    if (inode != 0) flags |= VIGIL_MAPPING_FILE;
    if (map->count >= map->capacity || map->mappings == NULL) {
        map->dropped++;
        return;
    }
    // The kernel lists mappings in ascending order; anything else breaks the binary search, so
    // an out-of-order line is refused rather than trusted.
    if (map->count > 0 && start < map->mappings[map->count - 1].end) {
        map->malformed++;
        return;
    }
    vigil_mapping *mapping = &map->mappings[map->count++];
    mapping->start = (uintptr_t)start;
    mapping->end = (uintptr_t)stop;
    mapping->inode = inode;
    mapping->flags = flags;
    mapping->reserved = 0;
}

void vigil_memory_map_feed(vigil_memory_map *map, const char *bytes, size_t length) {
    if (map == NULL || bytes == NULL) return;
    for (size_t index = 0; index < length; index++) {
        char c = bytes[index];
        if (c == '\n') {
            if (!map->line_overflow || map->line_length > 0) vigil_parse_line(map, map->line, map->line_length);
            map->line_length = 0;
            map->line_overflow = 0;
            continue;
        }
        // Only the fields before the path matter; a long path just stops being copied.
        if (map->line_length < sizeof map->line) {
            map->line[map->line_length++] = c;
        } else {
            map->line_overflow = 1;
        }
    }
}

void vigil_memory_map_finish(vigil_memory_map *map) {
    if (map == NULL) return;
    if (map->line_length > 0) vigil_parse_line(map, map->line, map->line_length);
    map->line_length = 0;
    map->line_overflow = 0;
}

int vigil_memory_map_read(vigil_memory_map *map, char *scratch, size_t scratch_capacity) {
    if (map == NULL || scratch == NULL || scratch_capacity < 256) return EINVAL;
    vigil_memory_map_reset(map);
#if defined(__linux__)
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    while (1) {
        ssize_t got = read(fd, scratch, scratch_capacity);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        vigil_memory_map_feed(map, scratch, (size_t)got);
    }
    close(fd);
    vigil_memory_map_finish(map);
    return map->count > 0 ? 0 : ENOENT;
#else
    return ENOTSUP;
#endif
}

static long vigil_memory_map_index(const vigil_memory_map *map, uintptr_t address) {
    if (map == NULL || map->mappings == NULL) return -1;
    uint32_t count = map->count < map->capacity ? map->count : map->capacity;
    uint32_t low = 0;
    uint32_t high = count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        const vigil_mapping *mapping = &map->mappings[middle];
        if (address < mapping->start) {
            high = middle;
        } else if (address >= mapping->end) {
            low = middle + 1;
        } else {
            return (long)middle;
        }
    }
    return -1;
}

const vigil_mapping *vigil_memory_map_find(const vigil_memory_map *map, uintptr_t address) {
    long index = vigil_memory_map_index(map, address);
    return index < 0 ? NULL : &map->mappings[index];
}

int vigil_memory_map_is_readable(const vigil_memory_map *map, uintptr_t address, size_t length) {
    if (length == 0) return 1;
    if (address + length < address) return 0;
    uintptr_t cursor = address;
    uintptr_t stop = address + length;
    long index = vigil_memory_map_index(map, cursor);
    if (index < 0) return 0;
    uint32_t count = map->count < map->capacity ? map->count : map->capacity;
    while (1) {
        const vigil_mapping *mapping = &map->mappings[index];
        if ((mapping->flags & VIGIL_MAPPING_READ) == 0 || cursor < mapping->start) return 0;
        if (stop <= mapping->end) return 1;
        cursor = mapping->end;
        index++;
        if ((uint32_t)index >= count || map->mappings[index].start != cursor) return 0;
    }
}

int vigil_memory_map_stack_bounds(const vigil_memory_map *map, uintptr_t address, vigil_stack_bounds *bounds) {
    const uint32_t wanted = VIGIL_MAPPING_READ | VIGIL_MAPPING_WRITE;
    long index = vigil_memory_map_index(map, address);
    if (index < 0 || bounds == NULL) return 0;
    if ((map->mappings[index].flags & wanted) != wanted) return 0;
    uint32_t count = map->count < map->capacity ? map->count : map->capacity;
    long first = index;
    long last = index;
    while (first > 0 && map->mappings[first - 1].end == map->mappings[first].start &&
           (map->mappings[first - 1].flags & wanted) == wanted) {
        first--;
    }
    while ((uint32_t)(last + 1) < count && map->mappings[last + 1].start == map->mappings[last].end &&
           (map->mappings[last + 1].flags & wanted) == wanted) {
        last++;
    }
    bounds->low = map->mappings[first].start;
    bounds->high = map->mappings[last].end;
    return 1;
}
