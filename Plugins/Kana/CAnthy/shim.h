#ifndef KBHOST_CANTHY_SHIM_H
#define KBHOST_CANTHY_SHIM_H
#include <anthy/anthy.h>
#endif
