#ifndef KBHOST_CHUNSPELL_SHIM_H
#define KBHOST_CHUNSPELL_SHIM_H
#include <hunspell/hunspell.h>
#endif
