/* libffi for Swift 6: the ffi_type_* globals import as mutable vars, which
   strict concurrency rejects, so they are reached through these accessors. */
#ifndef KB_CFFI_SHIM_H
#define KB_CFFI_SHIM_H
#include <ffi.h>

static inline ffi_type *kbffi_type_void(void) { return &ffi_type_void; }
static inline ffi_type *kbffi_type_pointer(void) { return &ffi_type_pointer; }
static inline ffi_type *kbffi_type_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *kbffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *kbffi_type_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *kbffi_type_double(void) { return &ffi_type_double; }
static inline ffi_abi kbffi_default_abi(void) { return FFI_DEFAULT_ABI; }
#endif
