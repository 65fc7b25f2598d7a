/*
 * The extension process's sandbox: namespaces (user, mount, PID, IPC, UTS and
 * network), seccomp (through libseccomp) and Landlock, installed before the
 * plugin is loaded. Only kbhost-worker links this.
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
    KBH_MECH_NAMESPACES = 16,      /* unprivileged user namespaces, and mount/PID/IPC/UTS/network ones in them */
    KBH_MECH_LAST = KBH_MECH_NAMESPACES,
};

typedef struct kbh_sandbox_request {
    bool open_access;                 /* the network and group writes */
    const char *const *read_paths;    /* read (and map executable): bundle, system; real paths, opened with no link followed */
    size_t read_path_count;
    const unsigned long long *read_identities; /* NULL, or (st_dev, st_ino) of each read path as the host checked it */
    const char *container;            /* read/write; NULL or "" for none */
    const char *const *group_paths;   /* read; write with open access */
    size_t group_path_count;
    unsigned allow_missing;           /* KBH_MECH_* the user allowed to be missing */
    unsigned pretend_missing;         /* KBH_MECH_* to treat as missing (tests, doctor) */
    bool namespaced;                  /* kbh_isolate_start succeeded in this process */
    bool network_isolated;            /* … with a network namespace of its own already */
    const char *namespace_error;      /* else why not (for the message), or NULL */
} kbh_sandbox_request;

/* The KBH_MECH_* bit of a protection's name ("seccomp", "landlock",
   "landlock-network", "landlock-scope"); 0 for an unknown name. */
unsigned kbh_mechanism_named(const char *name);

/* The name of a KBH_MECH_* bit ("seccomp", …, "namespaces"). */
const char *kbh_mechanism_name(unsigned mechanism);

/* The Landlock ABI this kernel offers; 0 when it has none (or it is disabled). */
int kbh_landlock_abi(void);
/* Whether this kernel can install seccomp filters. */
bool kbh_seccomp_available(void);
/* The mechanisms this kernel has (KBH_MECH_* bits). */
unsigned kbh_sandbox_available(void);

/* Whether this kernel lets an unprivileged process make the namespaces
   (tried in a short-lived child). */
bool kbh_namespaces_available(void);

/* At the worker's start, before anything else: enters new user, mount, PID,
   IPC and UTS namespaces and forks so that the caller continues as pid 2 of
   the new PID namespace (see isolation.c), with a network namespace of its
   own too when `private_network` (a keyboard without open access, or with the host's relay),
   with socket tables of its own when `own_socket_tables` (see isolation.c). Only the keyboard's process
   returns: 0, or 1 when the kernel refused the namespaces (err says why; the
   process goes on without them), or -1 on another failure. */
int kbh_isolate_start(bool private_network, bool own_socket_tables, char *err, size_t err_size);

/* With open access through the host's relay: the keyboard's network narrowed to what the relay
   carries (no IPv6, only the gateway on the link, a device queue of `queue_length` packets;
   see isolation.c). Called in the keyboard's process before its capabilities go. 0, or -1 with err. */
int kbh_isolate_relay_network(unsigned queue_length, char *err, size_t err_size);
/* Where the launcher of a keyboard with a network of its own keeps a sock_diag socket made in that
   network, for the host's governor (ExtensionProcess.launcherDiagnosticsDescriptor says the same). */
#define KBH_LAUNCHER_DIAG_FD 200
/* The host's second one there, for the sweep when the keyboard ends. */
#define KBH_LAUNCHER_SWEEP_FD 201
/* tap0's queue: 32 packets of at most 64 KiB (the relay's MTU), 2 MiB no socket holds. */
#define KBH_RELAY_QUEUE_LENGTH 32u

/* Builds the seccomp filter ahead of the load (while the process waits for
   one); kbh_sandbox_apply then installs it as it is. 0, or -1 with err. */
int kbh_sandbox_prepare(bool open_access, char *err, size_t err_size);

/* In the namespaces: builds the root the keyboard sees and pivots into it (called by kbh_sandbox_apply). */
int kbh_isolate_filesystem(const kbh_sandbox_request *request, const char *const *system_paths, size_t system_count,
                           char *err, size_t err_size);

/* This process's pid as the host sees it (call before the filesystem is isolated). */
int kbh_host_pid(void);

/* Installs everything the request asks for, in the calling process, for
   good: in the namespaces, a root that shows only what the request lists
   (and no network without open access); then no_new_privs, no transparent
   huge pages, capabilities dropped, Landlock, then seccomp.
   Returns 0, or -1 with a sentence in err (naming the mechanism that is
   missing or failed). *skipped receives the mechanisms that were missing
   but allowed. */
int kbh_sandbox_apply(const kbh_sandbox_request *request, unsigned *skipped, char *err, size_t err_size);

#endif
