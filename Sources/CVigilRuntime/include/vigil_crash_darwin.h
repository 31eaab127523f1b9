// vigil_crash_darwin.h: the crash handler's Apple-platform sibling, and the language-level
// exception record both platforms share.
//
// On Apple platforms a Mach exception port catches EXC_BAD_ACCESS, EXC_BAD_INSTRUCTION,
// EXC_ARITHMETIC, EXC_BREAKPOINT and EXC_SOFTWARE on a dedicated thread (so a stack overflow,
// which leaves no stack for a signal handler, is still reported), and a SIGABRT handler catches
// abort(), which raises no Mach exception a task port sees. Either suspends every other thread,
// walks every thread's frame pointers (`thread_get_state`, `vigil_walk_frames`), writes the same
// raw report format as Linux (plus `os darwin` and a `mach` record), resumes the threads and
// lets the exception go on to the next handler (the kernel then raises the BSD signal, and the
// process dies as it would have). docs/crash.md has the design.
//
// vigil_crash_mach.c and vigil_crash_terminate.cpp are empty on Linux. They are written against
// the documented Mach and pthread APIs, mirror the tested Linux handler, and are type-checked
// against the iOS 17 / macOS 14 SDKs; treat their behaviour as unverified until they run on an
// Apple platform (docs/runtime.md).
#ifndef VIGIL_CRASH_DARWIN_H
#define VIGIL_CRASH_DARWIN_H

#include <stdint.h>

#include "vigil_crash.h"
#include "vigil_images.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Records a language-level exception about to end the process (an uncaught NSException's name
/// and reason, a C++ exception's type), so that the crash report that follows carries it as an
/// `exception` record. Copies into storage allocated at install; a second call replaces the
/// first. Call from the throwing thread before it aborts, never from a signal handler.
/// Both platforms. NOT async-signal-safe (only because it may race a crash on another thread;
/// it takes no lock and does not allocate).
void vigil_crash_set_exception(const char *type, const char *reason);

/// Apple platforms: installs the Mach exception server thread and the SIGABRT handler, opens
/// the report file, and keeps `images` (the dyld image list, converted by the Swift adapter) as
/// the snapshot. Returns 0 or an errno value; ENOTSUP elsewhere. NOT async-signal-safe.
int vigil_crash_mach_install(const vigil_crash_config *config, const vigil_image *images, uint32_t count);

/// Apple platforms: replaces the image snapshot (two buffers, as on Linux). Call from a dyld
/// add-image callback's follow-up on a background queue. NOT async-signal-safe.
void vigil_crash_mach_publish_images(const vigil_image *images, uint32_t count);

/// Apple platforms: installs a C++ terminate handler that records the escaping exception's type
/// (and what()) with `vigil_crash_set_exception` before the previous handler aborts. A no-op
/// elsewhere. NOT async-signal-safe.
void vigil_crash_install_terminate_handler(void);

/// Apple platforms: stops reporting (the exception port and handler stay, passing everything
/// on) and, with `remove_file`, deletes the report file.
void vigil_crash_mach_disarm(int remove_file);

#ifdef __cplusplus
}
#endif

#endif
