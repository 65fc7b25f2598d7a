// The extension process's sandbox. See kbh_sandbox.h and README.md's
// security section: what a keyboard may do with and without open access.
#define _GNU_SOURCE
#include "kbh_sandbox.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// Landlock's uapi, spelled out: Debian 12's headers predate ABI 4–6.
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_TRUNCATE (1ULL << 14)
#define LL_FS_IOCTL_DEV (1ULL << 15)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

static const uint64_t ll_read = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR;
static const uint64_t ll_file_rights = LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;

void kbh_say(char *err, size_t size, const char *format, ...) {
    if (!err || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(err, size, format, args);
    va_end(args);
}

int kbh_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

bool kbh_seccomp_available(void) {
    // PR_GET_SECCOMP fails with EINVAL when the kernel has no seccomp at all;
    // SECCOMP_GET_ACTION_AVAIL says whether filters can return an errno.
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) return false;
    uint32_t action = 0x00050000U; // SECCOMP_RET_ERRNO
    return syscall(SYS_seccomp, 2 /* SECCOMP_GET_ACTION_AVAIL */, 0, &action) == 0;
}

static unsigned kernel_mechanisms(void) {
    unsigned have = 0;
    if (kbh_seccomp_available()) have |= KBH_MECH_SECCOMP;
    int abi = kbh_landlock_abi();
    if (abi >= 1) have |= KBH_MECH_LANDLOCK;
    if (abi >= 4) have |= KBH_MECH_LANDLOCK_NETWORK;
    if (abi >= 6) have |= KBH_MECH_LANDLOCK_SCOPE;
    return have;
}

unsigned kbh_sandbox_available(void) {
    return kernel_mechanisms() | (kbh_namespaces_available() ? KBH_MECH_NAMESPACES : 0);
}

static uint64_t ll_fs_handled(int abi) {
    uint64_t all = (1ULL << 13) - 1;        // ABI 1: execute … make_sym
    if (abi >= 2) all |= 1ULL << 13;         // refer
    if (abi >= 3) all |= LL_FS_TRUNCATE;
    if (abi >= 5) all |= LL_FS_IOCTL_DEV;
    return all;
}

// Allows `access` beneath `path` (or on it, for a file). A path that does not
// exist is skipped: not every system has /lib64.
static int ll_allow(int ruleset, const char *path, uint64_t access, uint64_t handled, char *err, size_t size) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? 0 : (kbh_say(err, size, "sandbox: cannot open %s for a Landlock rule: %s", path, strerror(errno)), -1);
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= ll_file_rights;
    struct ll_path_beneath_attr rule = { .allowed_access = access & handled, .parent_fd = fd };
    long r = rule.allowed_access ? syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) : 0;
    int saved = errno;
    close(fd);
    if (r < 0) {
        kbh_say(err, size, "sandbox: Landlock refused the rule for %s: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

// What every keyboard may read: the system's libraries and a few files, and
// the folder of every library already loaded (a toolchain outside /usr).
struct lib_dirs {
    char dirs[80][PATH_MAX];
    const char *list[80];
    int count;
};

static void add_path(struct lib_dirs *d, const char *path) {
    if (d->count >= 80) return;
    for (int i = 0; i < d->count; i++) if (strcmp(d->dirs[i], path) == 0) return;
    snprintf(d->dirs[d->count], PATH_MAX, "%s", path);
    d->list[d->count] = d->dirs[d->count];
    d->count++;
}

static void add_dir_of(struct lib_dirs *d, const char *file) {
    if (!file || file[0] != '/') return;
    // The system's own libraries are under /usr (through /lib, a link to it): no need to resolve them.
    if (strncmp(file, "/usr/", 5) == 0 || strncmp(file, "/lib/", 5) == 0 || strncmp(file, "/lib64/", 7) == 0) return;
    char real[PATH_MAX], dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", realpath(file, real) ? real : file);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    if (slash == dir) slash[1] = 0; else *slash = 0;
    add_path(d, dir);
}

static int collect_lib_dir(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    add_dir_of(data, info->dlpi_name);
    return 0;
}

static struct lib_dirs *system_paths(void) {
    struct lib_dirs *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    static const char *const fixed[] = { "/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache",
                                         "/etc/localtime", "/sys/devices/system/cpu" };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) add_path(d, fixed[i]);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) { exe[n] = 0; add_dir_of(d, exe); }
    dl_iterate_phdr(collect_lib_dir, d);
    return d;
}

static int install_landlock(const kbh_sandbox_request *q, const struct lib_dirs *libs, int abi, bool want_net,
                            bool want_scope, char *err, size_t size) {
    struct ll_ruleset_attr attr = { .handled_access_fs = ll_fs_handled(abi) };
    if (want_net) attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    if (want_scope) attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
    size_t attr_size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (ruleset < 0) {
        kbh_say(err, size, "sandbox: Landlock would not create a ruleset: %s", strerror(errno));
        return -1;
    }
    uint64_t handled = attr.handled_access_fs;
    int rc = 0;
    // The plugin's bundle and what the host listed (system data such as dictionaries).
    for (size_t i = 0; rc == 0 && i < q->read_path_count; i++) rc = ll_allow(ruleset, q->read_paths[i], ll_read, handled, err, size);
    // The system's libraries, and the folder of every library already loaded.
    for (int i = 0; rc == 0 && i < libs->count; i++) rc = ll_allow(ruleset, libs->dirs[i], ll_read, handled, err, size);
    static const char *const devices[] = { "/dev/urandom", "/dev/random", "/dev/zero" };
    for (size_t i = 0; rc == 0 && i < sizeof devices / sizeof *devices; i++)
        rc = ll_allow(ruleset, devices[i], ll_read, handled, err, size);
    if (rc == 0) rc = ll_allow(ruleset, "/dev/null", LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE, handled, err, size);
    if (rc == 0) rc = ll_allow(ruleset, "/proc/self", LL_FS_READ_FILE | LL_FS_READ_DIR, handled, err, size);
    // Its own container: everything. Its groups: read, and write with open access.
    if (rc == 0 && q->container && q->container[0]) rc = ll_allow(ruleset, q->container, handled, handled, err, size);
    for (size_t i = 0; rc == 0 && i < q->group_path_count; i++)
        rc = ll_allow(ruleset, q->group_paths[i], q->open_access ? handled : ll_read, handled, err, size);
    if (rc == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
        kbh_say(err, size, "sandbox: Landlock would not restrict the process: %s", strerror(errno));
        rc = -1;
    }
    close(ruleset);
    return rc;
}

static int deny(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned count, ...) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return 0;  // this architecture has no such call
    struct scmp_arg_cmp cmps[3];
    va_list args;
    va_start(args, count);
    for (unsigned i = 0; i < count && i < 3; i++) cmps[i] = va_arg(args, struct scmp_arg_cmp);
    va_end(args);
    return seccomp_rule_add_array(ctx, action, nr, count, cmps);
}

// Denies `name` unless its argument `arg` is 0 or `self`. A filter compares
// one argument once per rule, so "not 0 and not self" is spelled as "above
// self, or one of 1 … self-1" where self is small (in its PID namespace the
// keyboard is pid 2); where it is not, only 0 is allowed.
static int only_self(scmp_filter_ctx ctx, const char *name, unsigned arg, scmp_datum_t self) {
    const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    if (self > 16) return deny(ctx, eperm, name, 1, SCMP_CMP(arg, SCMP_CMP_NE, 0));
    int rc = deny(ctx, eperm, name, 1, SCMP_CMP(arg, SCMP_CMP_GT, self));
    for (scmp_datum_t v = 1; rc == 0 && v < self; v++) rc = deny(ctx, eperm, name, 1, SCMP_CMP(arg, SCMP_CMP_EQ, v));
    return rc;
}

// A call closed because the memory it holds would escape the budget fails
// with EPERM and says so in the keyboard's log: the filter traps it, and this
// handler writes one line and makes the call return -EPERM. (A keyboard that
// replaces the handler gets the SIGSYS itself: nothing opens.)
static void closed_memory_call(int sig, siginfo_t *info, void *context) {
    (void)sig;
    if (info->si_code != 1 /* SYS_SECCOMP */) return;
    const char *name = "a call";
    switch (info->si_syscall) {
    case SYS_memfd_create: name = "memfd_create"; break;
#ifdef SYS_memfd_secret
    case SYS_memfd_secret: name = "memfd_secret"; break;
#endif
#ifdef SYS_pipe
    case SYS_pipe: name = "pipe"; break;
#endif
    case SYS_pipe2: name = "pipe2"; break;
    case SYS_prctl: name = "prctl(PR_SET_THP_DISABLE)"; break;
    case SYS_mmap: name = "mmap(MAP_HUGETLB)"; break;
    }
    static const char before[] = "kbhost sandbox: ";
    static const char after[] = " is closed to keyboards: memory held that way would escape the memory budget (EPERM)\n";
    (void)!write(2, before, sizeof before - 1);
    (void)!write(2, name, strlen(name));
    (void)!write(2, after, sizeof after - 1);
    ucontext_t *uc = context;
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
    uc->uc_mcontext.regs[0] = (unsigned long long)-EPERM;
#endif
}

static uint32_t closed_action(void) {
#if defined(__x86_64__) || defined(__aarch64__)
    return SCMP_ACT_TRAP;
#else
    return SCMP_ACT_ERRNO(EPERM);
#endif
}

static int install_closed_memory_handler(char *err, size_t size) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = closed_memory_call;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSYS, &action, NULL) < 0) {
        kbh_say(err, size, "sandbox: cannot handle SIGSYS: %s", strerror(errno));
        return -1;
    }
    return 0;
}

// The filter, built ahead of the load where possible (kbh_sandbox_prepare:
// a spare builds it while it waits) and installed as plain BPF.
static struct {
    bool ready, open_access;
    struct sock_filter *program;
    unsigned short length;
} prepared;

static int build_seccomp(bool open_access, scmp_filter_ctx *out, char *err, size_t size) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        kbh_say(err, size, "sandbox: libseccomp could not start a filter");
        return -1;
    }
    const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    // One filter for the native architecture only: i386 and x32 numbers
    // (which could reach calls by other numbers) kill the process.
    if (rc == 0 && seccomp_arch_native() == SCMP_ARCH_X86_64) {
        if (seccomp_arch_exist(ctx, SCMP_ARCH_X32) == 0) rc = seccomp_arch_remove(ctx, SCMP_ARCH_X32);
    }
    static const char *const never[] = {
        // Reaching into other processes.
        "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_getfd", "pidfd_send_signal",
        "kcmp", "tkill",
        // New programs and processes (threads are fine: clone with CLONE_THREAD, below).
        "execve", "execveat", "fork", "vfork",
        // io_uring can open sockets and files without the calls filtered here.
        "io_uring_setup", "io_uring_enter", "io_uring_register",
        // The kernel's and the machine's business.
        "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "mount_setattr", "move_mount",
        "open_tree", "fsopen", "fsmount", "fspick", "bpf", "perf_event_open", "kexec_load", "kexec_file_load",
        "init_module", "finit_module", "delete_module", "keyctl", "add_key", "request_key", "userfaultfd",
        "open_by_handle_at", "name_to_handle_at", "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog",
        "lookup_dcookie", "iopl", "ioperm", "settimeofday", "clock_settime", "adjtimex", "clock_adjtime",
        // Other processes' memory and process groups.
        "migrate_pages", "move_pages", "setpgid", "setsid",
        // Talking to processes outside: new Unix sockets, SysV IPC, POSIX message queues
        // (the host's channel is inherited; TCP/UDP sockets are decided below).
        "socketpair", "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl",
        "semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
        "mq_notify", "mq_getsetattr",
        // Serving: a keyboard only ever connects out (and a listener with its own
        // connections would hold socket buffers the budget does not see).
        "listen", "accept", "accept4",
        // Watching files it does not own; giving files away.
        "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
        "chown", "fchown", "lchown", "fchownat",
    };
    for (size_t i = 0; rc == 0 && i < sizeof never / sizeof *never; i++) rc = deny(ctx, eperm, never[i], 0);
    // clone3 answers ENOSYS so that the C library falls back to clone, whose flags a filter can see.
    if (rc == 0) rc = deny(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0);
    if (rc == 0) rc = deny(ctx, eperm, "clone", 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    // Signals only to itself.
    scmp_datum_t self = (scmp_datum_t)getpid();
    // Calls that name a process: only the keyboard itself (0 or its pid), as
    // Chromium's baseline policy restricts them.
    static const struct { const char *name; unsigned arg; } targets[] = {
        {"prlimit64", 0}, {"sched_setscheduler", 0}, {"sched_setparam", 0}, {"sched_setaffinity", 0},
        {"sched_setattr", 0}, {"sched_getscheduler", 0}, {"sched_getparam", 0}, {"sched_getaffinity", 0},
        {"sched_getattr", 0}, {"sched_rr_get_interval", 0}, {"get_robust_list", 0},
        {"setpriority", 1}, {"getpriority", 1}, {"ioprio_set", 1}, {"ioprio_get", 1},
    };
    for (size_t i = 0; rc == 0 && i < sizeof targets / sizeof *targets; i++) rc = only_self(ctx, targets[i].name, targets[i].arg, self);
    if (rc == 0) rc = deny(ctx, eperm, "setpriority", 1, SCMP_A0(SCMP_CMP_NE, PRIO_PROCESS));
    if (rc == 0) rc = deny(ctx, eperm, "getpriority", 1, SCMP_A0(SCMP_CMP_NE, PRIO_PROCESS));
    if (rc == 0) rc = deny(ctx, eperm, "ioprio_set", 1, SCMP_A0(SCMP_CMP_NE, 1 /* IOPRIO_WHO_PROCESS */));
    if (rc == 0) rc = deny(ctx, eperm, "ioprio_get", 1, SCMP_A0(SCMP_CMP_NE, 1 /* IOPRIO_WHO_PROCESS */));
    // Memory the budget would not see: memfd pages written and never mapped, pipe buffers,
    // hugetlb pages; transparent huge pages stay off (they let memory outrun the
    // governor's samples). These say why in the keyboard's log (closed_memory_call).
    const uint32_t closed = closed_action();
    static const char *const hidden_memory[] = { "memfd_create", "memfd_secret", "pipe", "pipe2" };
    for (size_t i = 0; rc == 0 && i < sizeof hidden_memory / sizeof *hidden_memory; i++) rc = deny(ctx, closed, hidden_memory[i], 0);
    if (rc == 0) rc = deny(ctx, closed, "prctl", 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_THP_DISABLE));
    if (rc == 0) rc = deny(ctx, closed, "mmap", 1, SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_HUGETLB, MAP_HUGETLB));
    if (rc == 0) rc = deny(ctx, eperm, "kill", 1, SCMP_A0(SCMP_CMP_NE, self));
    if (rc == 0) rc = deny(ctx, eperm, "tgkill", 1, SCMP_A0(SCMP_CMP_NE, self));
    if (rc == 0) rc = deny(ctx, eperm, "rt_sigqueueinfo", 1, SCMP_A0(SCMP_CMP_NE, self));
    if (rc == 0) rc = deny(ctx, eperm, "rt_tgsigqueueinfo", 1, SCMP_A0(SCMP_CMP_NE, self));
    // No typing into the terminal behind the host's back.
    if (rc == 0) rc = deny(ctx, eperm, "ioctl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, TIOCSTI));
    if (rc == 0) rc = deny(ctx, eperm, "ioctl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, TIOCLINUX));
    // Sockets: Unix ones always; IPv4/IPv6 (not raw) with open access; packet, netlink and the rest never.
    if (open_access) {
        if (rc == 0) rc = deny(ctx, eperm, "socket", 1, SCMP_A0(SCMP_CMP_GT, AF_INET6));
        for (int family = AF_UNSPEC; rc == 0 && family < AF_INET6; family++)
            if (family != AF_INET) rc = deny(ctx, eperm, "socket", 1, SCMP_A0(SCMP_CMP_EQ, family));
        if (rc == 0) rc = deny(ctx, eperm, "socket", 2, SCMP_A0(SCMP_CMP_EQ, AF_INET), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW));
        if (rc == 0) rc = deny(ctx, eperm, "socket", 2, SCMP_A0(SCMP_CMP_EQ, AF_INET6), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW));
    } else {
        if (rc == 0) rc = deny(ctx, eperm, "socket", 0);
    }
    if (rc == 0) rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    if (rc != 0) {
        kbh_say(err, size, "sandbox: libseccomp could not build the filter: %s", strerror(-rc));
        seccomp_release(ctx);
        return -1;
    }
    *out = ctx;
    return 0;
}

int kbh_sandbox_prepare(bool open_access, char *err, size_t size) {
    scmp_filter_ctx ctx;
    if (build_seccomp(open_access, &ctx, err, size) < 0) return -1;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        seccomp_release(ctx);
        return 0;  // built again at load
    }
    int rc = seccomp_export_bpf(ctx, fds[1]);
    seccomp_release(ctx);
    close(fds[1]);
    unsigned char *bytes = NULL;
    size_t length = 0;
    for (ssize_t n; rc == 0;) {
        unsigned char *grown = realloc(bytes, length + 4096);
        if (!grown) { rc = -1; break; }
        bytes = grown;
        n = read(fds[0], bytes + length, 4096);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { rc = n < 0 ? -1 : 0; break; }
        length += (size_t)n;
    }
    close(fds[0]);
    if (rc != 0 || length == 0 || length % sizeof(struct sock_filter) || length / sizeof(struct sock_filter) > 4096) {
        free(bytes);
        return 0;
    }
    free(prepared.program);
    prepared.program = (struct sock_filter *)bytes;
    prepared.length = (unsigned short)(length / sizeof(struct sock_filter));
    prepared.open_access = open_access;
    prepared.ready = true;
    return 0;
}

static int install_seccomp(const kbh_sandbox_request *q, char *err, size_t size) {
    if (install_closed_memory_handler(err, size) < 0) return -1;
    if (prepared.ready && prepared.open_access == q->open_access) {
        struct sock_fprog program = { .len = prepared.length, .filter = prepared.program };
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) {
            kbh_say(err, size, "sandbox: the kernel refused the seccomp filter: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    scmp_filter_ctx ctx;
    if (build_seccomp(q->open_access, &ctx, err, size) < 0) return -1;
    int rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) {
        kbh_say(err, size, "sandbox: the kernel refused the seccomp filter: %s", strerror(-rc));
        return -1;
    }
    return 0;
}

// Root in the extension process keeps no capability: nothing to regain later either.
static int drop_capabilities(char *err, size_t size) {
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;  // past the last capability
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EPERM) {
            kbh_say(err, size, "sandbox: cannot drop capability %d from the bounding set: %s", cap, strerror(errno));
            return -1;
        }
    }
    (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) < 0) {
        kbh_say(err, size, "sandbox: cannot drop capabilities: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

const char *kbh_mechanism_name(unsigned m) {
    switch (m) {
    case KBH_MECH_SECCOMP: return "seccomp";
    case KBH_MECH_LANDLOCK: return "landlock";
    case KBH_MECH_LANDLOCK_NETWORK: return "landlock-network";
    case KBH_MECH_LANDLOCK_SCOPE: return "landlock-scope";
    case KBH_MECH_NAMESPACES: return "namespaces";
    default: return "?";
    }
}

unsigned kbh_mechanism_named(const char *name) {
    for (unsigned m = 1; m <= KBH_MECH_LAST; m <<= 1)
        if (name && strcmp(name, kbh_mechanism_name(m)) == 0) return m;
    return 0;
}

static const char *mechanism_need(unsigned m) {
    switch (m) {
    case KBH_MECH_SECCOMP: return "seccomp filters (CONFIG_SECCOMP_FILTER)";
    case KBH_MECH_LANDLOCK: return "Landlock (CONFIG_SECURITY_LANDLOCK, and landlock in the lsm= list)";
    case KBH_MECH_LANDLOCK_NETWORK: return "Landlock's TCP rules (Landlock ABI 4, Linux 6.7)";
    case KBH_MECH_LANDLOCK_SCOPE: return "Landlock's scoping of signals and abstract sockets (Landlock ABI 6, Linux 6.12)";
    case KBH_MECH_NAMESPACES: return "unprivileged user namespaces (with mount, PID, IPC, UTS and network namespaces in them)";
    default: return "?";
    }
}

int kbh_sandbox_apply(const kbh_sandbox_request *q, unsigned *skipped, char *err, size_t size) {
    if (skipped) *skipped = 0;
    int abi = kbh_landlock_abi();
    unsigned have = (kernel_mechanisms() | (q->namespaced ? KBH_MECH_NAMESPACES : 0)) & ~q->pretend_missing;
    if (!(have & KBH_MECH_LANDLOCK)) have &= ~(KBH_MECH_LANDLOCK_NETWORK | KBH_MECH_LANDLOCK_SCOPE);
    unsigned needed = KBH_MECH_SECCOMP | KBH_MECH_LANDLOCK | KBH_MECH_LANDLOCK_SCOPE | KBH_MECH_NAMESPACES;
    if (!q->open_access) needed |= KBH_MECH_LANDLOCK_NETWORK;  // with open access TCP is open anyway
    for (unsigned m = 1; m <= KBH_MECH_LAST; m <<= 1) {
        if (!(needed & m) || (have & m)) continue;
        if (!(q->allow_missing & m)) {
            const char *why = m == KBH_MECH_NAMESPACES && q->namespace_error ? q->namespace_error : NULL;
            kbh_say(err, size, "this kernel lacks %s%s%s%s, which kbhost's sandbox needs (protection '%s'); "
                "the keyboard was not started. To run it without that protection: kbhost protection ID allow %s",
                mechanism_need(m), why ? " (" : "", why ? why : "", why ? ")" : "",
                kbh_mechanism_name(m), kbh_mechanism_name(m));
            return -1;
        }
        if (skipped) *skipped |= m;
    }
    int threads = thread_count();
    if (threads > 1) {
        kbh_say(err, size, "sandbox: the extension process already has %d threads; Landlock would restrict only one", threads);
        return -1;
    }
    struct lib_dirs *libs = system_paths();
    if (!libs) {
        kbh_say(err, size, "sandbox: out of memory");
        return -1;
    }
    int rc = 0;
    if (have & KBH_MECH_NAMESPACES) rc = kbh_isolate_filesystem(q, libs->list, (size_t)libs->count, err, size);
    // Huge pages let memory outrun the governor's samples (18.7 MiB over a budget was seen): none.
    if (rc == 0 && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0) {
        kbh_say(err, size, "sandbox: cannot turn transparent huge pages off: %s", strerror(errno));
        rc = -1;
    }
    if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        kbh_say(err, size, "sandbox: PR_SET_NO_NEW_PRIVS failed: %s", strerror(errno));
        rc = -1;
    }
    if (rc == 0) rc = drop_capabilities(err, size);
    if (rc == 0 && (have & KBH_MECH_LANDLOCK))
        rc = install_landlock(q, libs, abi, !q->open_access && (have & KBH_MECH_LANDLOCK_NETWORK),
                              (have & KBH_MECH_LANDLOCK_SCOPE) != 0, err, size);
    free(libs);
    if (rc == 0 && (have & KBH_MECH_SECCOMP)) rc = install_seccomp(q, err, size);
    return rc;
}
