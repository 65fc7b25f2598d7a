/*
 * The extension process's sandbox: seccomp (through libseccomp) and Landlock,
 * installed before the plugin is loaded. Only kbhost-worker links this.
 */
#ifndef KBH_SANDBOX_H
#define KBH_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

/* The protections a kernel may lack (bit flags). */
enum {
    KBH_MECH_SECCOMP = 1,          /* the system call filter */
    KBH_MECH_LANDLOCK = 2,         /* filesystem rules (Landlock ABI 1) */
    KBH_MECH_LANDLOCK_NETWORK = 4, /* TCP bind/connect rules (Landlock ABI 4) */
    KBH_MECH_LANDLOCK_SCOPE = 8,   /* abstract sockets and signals (Landlock ABI 6) */
};

typedef struct kbh_sandbox_request {
    bool open_access;                 /* the network and group writes */
    const char *const *read_paths;    /* read (and map executable): bundle, system */
    size_t read_path_count;
    const char *container;            /* read/write; NULL or "" for none */
    const char *const *group_paths;   /* read; write with open access */
    size_t group_path_count;
    unsigned allow_missing;           /* KBH_MECH_* the user allowed to be missing */
    unsigned pretend_missing;         /* KBH_MECH_* to treat as missing (tests, doctor) */
} kbh_sandbox_request;

/* The KBH_MECH_* bit of a protection's name ("seccomp", "landlock",
   "landlock-network", "landlock-scope"); 0 for an unknown name. */
unsigned kbh_mechanism_named(const char *name);

/* The Landlock ABI this kernel offers; 0 when it has none (or it is disabled). */
int kbh_landlock_abi(void);
/* Whether this kernel can install seccomp filters. */
bool kbh_seccomp_available(void);
/* The mechanisms this kernel has (KBH_MECH_* bits). */
unsigned kbh_sandbox_available(void);

/* Installs everything the request asks for, in the calling process, for
   good: no_new_privs, capabilities dropped, Landlock, then seccomp.
   Returns 0, or -1 with a sentence in err (naming the mechanism that is
   missing or failed). *skipped receives the mechanisms that were missing
   but allowed. */
int kbh_sandbox_apply(const kbh_sandbox_request *request, unsigned *skipped, char *err, size_t err_size);

#endif
