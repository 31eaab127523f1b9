// libFuzzer's driver entry point (compiler-rt, LLVM 11 and later). SwiftPM links each
// executable's entry as `<Target>_main`, so every fuzz target defines that symbol and hands
// control to libFuzzer through this call instead of relying on libFuzzer's own `main`.
#ifndef VIGIL_FUZZ_DRIVER_H
#define VIGIL_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
