#include "kbhost_keyboard.h"

/* The ABI is the header; this symbol lets tools read which version a
   library was compiled against (`nm -D`), and gives SwiftPM a source file. */
const uint32_t kbh_abi_version_compiled = KBH_ABI_VERSION;
