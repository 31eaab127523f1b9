// Declarations only; libFuzzer (linked by -sanitize=fuzzer) defines LLVMFuzzerRunDriver.
#include "fuzz_driver.h"
