// What sandbox.c, seccomp.c, isolation.c and filesystem.c share; not part of the public header.
#ifndef KBH_SANDBOX_INTERNAL_H
#define KBH_SANDBOX_INTERNAL_H

#include "kbh_sandbox.h"
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes a sentence into err (when there is room), printf-style. */
void kbh_say(char *err, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* Installs the seccomp filter (the one kbh_sandbox_prepare built, when it fits
   the request): seccomp.c, for kbh_sandbox_apply. 0, or -1 with err set. */
int kbh_install_seccomp(const kbh_sandbox_request *q, char *err, size_t size);

/* The filter's rules (allowlist.c): every call a keyboard may make, on the arguments it may
   use them with (`self`: its pid). 0, or a libseccomp error. */
int kbh_seccomp_policy(scmp_filter_ctx ctx, bool open_access, scmp_datum_t self);

/* A call's name, for the log line (async-signal-safe: a table), or NULL when the lists do not
   name it; *by_argument says whether it is allowed on some arguments only. */
const char *kbh_seccomp_call_name(int nr, bool *by_argument);

/* Whether allowlist.c names the call as refused or allowed on some arguments only (record mode). */
bool kbh_seccomp_call_refused(int nr);

/* The record mode's file, opened before the root is built; nothing unless built with KBH_SECCOMP_RECORD (seccomp.c). */
void kbh_seccomp_record_open(const char *container);

/* One call, named for a table. */
struct kbh_call { int nr; const char *name; };

#endif
