// What sandbox.c, seccomp.c, isolation.c and filesystem.c share; not part of the public header.
#ifndef KBH_SANDBOX_INTERNAL_H
#define KBH_SANDBOX_INTERNAL_H

#include "kbh_sandbox.h"
#include <stddef.h>

/* Writes a sentence into err (when there is room), printf-style. */
void kbh_say(char *err, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* Installs the seccomp filter (the one kbh_sandbox_prepare built, when it fits
   the request): seccomp.c, for kbh_sandbox_apply. 0, or -1 with err set. */
int kbh_install_seccomp(const kbh_sandbox_request *q, char *err, size_t size);

#endif
