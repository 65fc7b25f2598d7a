/* libibus (Debian's libibus-1.0-dev), for CKBIBus: the engine's C side. Swift
   never imports this module directly; it sees only CKBIBus's small header. */
#ifndef KB_CIBUS_SHIM_H
#define KB_CIBUS_SHIM_H
#include <ibus.h>
#endif
