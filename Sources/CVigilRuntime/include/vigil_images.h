// vigil_images.h: the list of loaded ELF images (executable, shared libraries, vDSO) with
// their GNU build ids, load addresses, sizes and paths, for turning absolute stack addresses
// into (image, offset) pairs.
//
// Reading the list (`dl_iterate_phdr`) takes the dynamic loader's lock and is therefore NOT
// async-signal-safe. Snapshots are taken at install and refresh time into preallocated
// storage; a signal handler (the crash handler of a later issue) only reads the published
// snapshot. Linux only; Darwin reads `_dyld_*` and `LC_UUID` in VigilRuntime's Darwin
// adapter, and here `vigil_images_snapshot` reports ENOTSUP.
#ifndef VIGIL_IMAGES_H
#define VIGIL_IMAGES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Longest path kept per image, including the terminating NUL; longer paths are cut and
/// flagged.
#define VIGIL_IMAGE_PATH_CAPACITY 512
/// Longest build id kept, in bytes (GNU build ids are 20 bytes with SHA-1, 16 with MD5/UUID).
#define VIGIL_IMAGE_ID_CAPACITY 32

/// One loaded image.
typedef struct vigil_image {
    /// Address of the image's lowest `PT_LOAD` segment in memory (what events call
    /// `loadAddress`).
    uintptr_t load_address;
    /// Bytes from `load_address` to the end of the highest `PT_LOAD` segment.
    uint64_t size;
    /// The loader's bias (`dlpi_addr`): a file virtual address plus the bias is the address in
    /// memory. Equals `load_address` for PIE executables and shared libraries.
    uintptr_t bias;
    /// The lowest `PT_LOAD` `p_vaddr` in the file (0 for PIE executables and libraries), so
    /// that `address - load_address + lowest_vaddr` is the file virtual address a symbolizer
    /// wants.
    uintptr_t lowest_vaddr;
    /// GNU build id bytes (`NT_GNU_BUILD_ID`); `id_length` is 0 when the image has none.
    uint8_t id[VIGIL_IMAGE_ID_CAPACITY];
    uint32_t id_length;
    /// 1 when the path did not fit and was cut.
    uint32_t path_truncated;
    /// NUL-terminated path as the loader knows it; the main executable's comes from
    /// /proc/self/exe.
    char path[VIGIL_IMAGE_PATH_CAPACITY];
} vigil_image;

/// A snapshot of the loaded images in caller-provided storage.
typedef struct vigil_image_list {
    /// Storage for `capacity` images.
    vigil_image *images;
    uint32_t capacity;
    /// Images written.
    uint32_t count;
    /// Images that did not fit.
    uint32_t dropped;
    /// Images whose program headers could not be used (no `PT_LOAD`).
    uint32_t skipped;
    /// The loader's count of loads and unloads when the snapshot was taken (glibc's
    /// `dlpi_adds`/`dlpi_subs`, 0 when unavailable): a later `vigil_images_changed` compares
    /// against them.
    uint64_t loader_adds;
    uint64_t loader_subs;
} vigil_image_list;

/// Fills `list->images` (up to `list->capacity`) with the loaded images and sets the other
/// fields. Returns 0 or an errno value (EINVAL, ENOTSUP off Linux).
///
/// NOT async-signal-safe (`dl_iterate_phdr` locks; /proc/self/exe is read once per process).
int vigil_images_snapshot(vigil_image_list *list);

/// Whether images were loaded or unloaded since `list` was taken. Cheap (stops at the first
/// image), but NOT async-signal-safe (`dl_iterate_phdr`). Returns 1 when changed or unknown.
int vigil_images_changed(const vigil_image_list *list);

/// The image of `list` that contains `address`, or NULL. Async-signal-safe (reads `list`
/// only).
const vigil_image *vigil_image_list_find(const vigil_image_list *list, uintptr_t address);

/// The architecture the runtime was built for, as events name it: "x86_64", "arm64", or
/// "unknown". Async-signal-safe.
const char *vigil_image_architecture(void);

#ifdef __cplusplus
}
#endif

#endif
