#ifndef KBHOST_FUZZ_DRIVER_H
#define KBHOST_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): runs the fuzzer with
/// these arguments over `callback`. Called from FuzzManifest's own main, because SwiftPM
/// on Linux names an executable's entry point itself (FuzzManifest_main, aliased to main).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
