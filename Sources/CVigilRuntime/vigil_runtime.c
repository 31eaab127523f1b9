#include "vigil_runtime.h"

uint32_t vigil_runtime_format_version(void) { return 1; }
