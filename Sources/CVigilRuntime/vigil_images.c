// The loaded-image list. See include/vigil_images.h for the contract.
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "vigil_images.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#if defined(__linux__)
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>
#endif

const char *vigil_image_architecture(void) {
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__) || defined(__arm64__)
    return "arm64";
#else
    return "unknown";
#endif
}

const vigil_image *vigil_image_list_find(const vigil_image_list *list, uintptr_t address) {
    if (list == NULL || list->images == NULL) return NULL;
    uint32_t count = list->count < list->capacity ? list->count : list->capacity;
    for (uint32_t index = 0; index < count; index++) {
        const vigil_image *image = &list->images[index];
        if (address >= image->load_address && (uint64_t)(address - image->load_address) < image->size) return image;
    }
    return NULL;
}

#if defined(__linux__)

static char vigil_executable_path[VIGIL_IMAGE_PATH_CAPACITY];
static pthread_once_t vigil_executable_path_once = PTHREAD_ONCE_INIT;

static void vigil_read_executable_path(void) {
    ssize_t length = readlink("/proc/self/exe", vigil_executable_path, sizeof vigil_executable_path - 1);
    vigil_executable_path[length > 0 ? (size_t)length : 0] = '\0';
}

static size_t vigil_align_up(size_t value, size_t alignment) {
    return (value + alignment - 1) & ~(alignment - 1);
}

// Scans one PT_NOTE segment for NT_GNU_BUILD_ID; every length is checked against the segment.
static uint32_t vigil_find_build_id(const uint8_t *notes, size_t size, size_t alignment, uint8_t *out) {
    if (alignment != 4 && alignment != 8) alignment = 4;
    size_t offset = 0;
    while (size >= sizeof(ElfW(Nhdr)) && offset <= size - sizeof(ElfW(Nhdr))) {
        ElfW(Nhdr) header;
        memcpy(&header, notes + offset, sizeof header);
        size_t name_start = offset + sizeof header;
        if (header.n_namesz > size || header.n_descsz > size) return 0;
        size_t desc_start = vigil_align_up(name_start + header.n_namesz, alignment);
        size_t next = vigil_align_up(desc_start + header.n_descsz, alignment);
        if (desc_start > size || desc_start + header.n_descsz > size) return 0;
        if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
            memcmp(notes + name_start, "GNU", 4) == 0 && header.n_descsz > 0) {
            uint32_t length = header.n_descsz < VIGIL_IMAGE_ID_CAPACITY ? header.n_descsz : VIGIL_IMAGE_ID_CAPACITY;
            memcpy(out, notes + desc_start, length);
            return length;
        }
        if (next <= offset) return 0;
        offset = next;
    }
    return 0;
}

static int vigil_collect_image(struct dl_phdr_info *info, size_t size, void *context) {
    vigil_image_list *list = (vigil_image_list *)context;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs && list->count == 0 &&
        list->dropped == 0 && list->skipped == 0) {
        list->loader_adds = info->dlpi_adds;
        list->loader_subs = info->dlpi_subs;
    }
    uintptr_t lowest = UINTPTR_MAX;
    uintptr_t highest = 0;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD) continue;
        if (header->p_vaddr < lowest) lowest = header->p_vaddr;
        if (header->p_vaddr + header->p_memsz > highest) highest = header->p_vaddr + header->p_memsz;
    }
    if (lowest == UINTPTR_MAX || highest <= lowest) {
        list->skipped++;
        return 0;
    }
    if (list->count >= list->capacity) {
        list->dropped++;
        return 0;
    }
    vigil_image *image = &list->images[list->count];
    memset(image, 0, offsetof(vigil_image, path) + 1);
    image->bias = info->dlpi_addr;
    image->lowest_vaddr = lowest;
    image->load_address = info->dlpi_addr + lowest;
    image->size = highest - lowest;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum && image->id_length == 0; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_NOTE) continue;
        image->id_length = vigil_find_build_id((const uint8_t *)(info->dlpi_addr + header->p_vaddr),
                                               header->p_memsz, header->p_align, image->id);
    }
    const char *path = info->dlpi_name;
    if (path == NULL || path[0] == '\0') path = list->count == 0 ? vigil_executable_path : "";
    size_t length = strlen(path);
    if (length >= VIGIL_IMAGE_PATH_CAPACITY) {
        length = VIGIL_IMAGE_PATH_CAPACITY - 1;
        image->path_truncated = 1;
    }
    memcpy(image->path, path, length);
    image->path[length] = '\0';
    list->count++;
    return 0;
}

int vigil_images_snapshot(vigil_image_list *list) {
    if (list == NULL || (list->images == NULL && list->capacity > 0)) return EINVAL;
    pthread_once(&vigil_executable_path_once, vigil_read_executable_path);
    list->count = 0;
    list->dropped = 0;
    list->skipped = 0;
    list->loader_adds = 0;
    list->loader_subs = 0;
    dl_iterate_phdr(vigil_collect_image, list);
    return 0;
}

static int vigil_read_loader_counters(struct dl_phdr_info *info, size_t size, void *context) {
    uint64_t *counters = (uint64_t *)context;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) return 1;
    counters[0] = info->dlpi_adds;
    counters[1] = info->dlpi_subs;
    counters[2] = 1;
    return 1;  // The first image carries the counters; stop there.
}

int vigil_images_changed(const vigil_image_list *list) {
    if (list == NULL) return 1;
    uint64_t counters[3] = {0, 0, 0};
    dl_iterate_phdr(vigil_read_loader_counters, counters);
    if (counters[2] == 0) return 1;
    return counters[0] != list->loader_adds || counters[1] != list->loader_subs;
}

#else

int vigil_images_snapshot(vigil_image_list *list) {
    if (list != NULL) list->count = 0;
    return ENOTSUP;
}

int vigil_images_changed(const vigil_image_list *list) {
    (void)list;
    return 1;
}

#endif
