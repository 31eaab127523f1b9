// vigil_runtime.h: shared definitions of CVigilRuntime, the C, async-signal-safe part of the
// Vigil SDK (stack walking, sampling another thread, the crash handler and its raw report writer,
// the loaded-image list). Each unit has its own header in this folder (the folder is the
// module's umbrella).
//
// Conventions: every symbol carries the `vigil_` prefix; every function's comment says whether
// it is async-signal-safe; state lives in structs allocated at install time.
#ifndef VIGIL_RUNTIME_H
#define VIGIL_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Version of the raw formats this runtime writes (crash reports, sample buffers).
/// Async-signal-safe.
uint32_t vigil_runtime_format_version(void);

#ifdef __cplusplus
}
#endif

#endif
