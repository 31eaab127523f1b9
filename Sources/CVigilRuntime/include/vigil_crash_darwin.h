// vigil_crash_darwin.h: the crash handler's Apple-platform sibling, and the language-level
// exception record both platforms share.
//
// On Apple platforms a Mach exception port catches EXC_BAD_ACCESS, EXC_BAD_INSTRUCTION,
// EXC_ARITHMETIC, EXC_BREAKPOINT and EXC_SOFTWARE on a dedicated thread (so a stack overflow,
// which leaves no stack for a signal handler, is still reported), and a SIGABRT handler catches
// abort(), which raises no Mach exception a task port sees (its registers come from the signal's
// ucontext). On an exception the previous ports are restored first; then every other thread is
// suspended, every thread is walked with Mach traps only (`vigil_darwin_thread.h`: no libpthread
// lookup, which could wait on a lock a suspended thread holds), the same raw report format as
// Linux is written (plus `os darwin`, a `mach` record and the throw site as `exception-stack`),
// the threads resume and the exception goes on: to the previous task-level handler by a re-fault
// when it takes the exception (KSCrash's chaining), else to the host level and the BSD signal.
// Under a debugger the port is left alone. docs/crash.md has the design.
//
// NOT LINKED OR RUN on the Linux machine this project is developed on: vigil_crash_mach.c and
// vigil_crash_terminate.cpp are empty there. They are type-checked against the iOS 17 and
// macOS 14 SDKs (the request layout pinned by _Static_assert) and mirror the tested Linux
// handler; their behaviour is verified only by an Apple CI run.
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

/// Records the throw site of the language-level exception (an uncaught NSException's
/// `callStackReturnAddresses`, innermost first; at most 512 kept, pointer authentication
/// stripped) for the report that follows, as an `exception-stack` record. Same rules as
/// `vigil_crash_set_exception`. Apple platforms; a no-op elsewhere.
void vigil_crash_set_exception_stack(const uintptr_t *addresses, uint32_t count);

/// Whether the Mach exception port is Vigil's (`vigil_crash_mach_port_state`).
typedef enum vigil_mach_port_state_value {
    /// Not installed, failed, or given back to the previous handler after an exception.
    VIGIL_MACH_PORT_INACTIVE = 0,
    /// Vigil's port receives the task's exceptions.
    VIGIL_MACH_PORT_ACTIVE = 1,
    /// Left off because a debugger was attached at install (the SIGABRT handler is still on).
    VIGIL_MACH_PORT_DEBUGGER = 2,
} vigil_mach_port_state_value;

/// Apple platforms: the Mach handler's stage (`vigil_crash_stage_value`); NOT_INSTALLED
/// elsewhere. Async-signal-safe.
uint32_t vigil_crash_mach_stage(void);

/// Apple platforms: the exception port's state (`vigil_mach_port_state_value`). Async-signal-safe.
uint32_t vigil_crash_mach_port_state(void);

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
