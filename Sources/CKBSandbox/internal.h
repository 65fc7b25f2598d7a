// What sandbox.c and isolation.c share; not part of the public header.
#ifndef KBH_SANDBOX_INTERNAL_H
#define KBH_SANDBOX_INTERNAL_H

#include <stddef.h>

/* Writes a sentence into err (when there is room), printf-style. */
void kbh_say(char *err, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

#endif
