// The extension process's seccomp filter: the calls a keyboard may not make,
// built ahead (kbh_sandbox_prepare) and installed by kbh_sandbox_apply in sandbox.c.
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
        // Binding an address: a keyboard that connects out never needs one, and a
        // bound UDP socket (SO_REUSEPORT) could take another program's datagrams.
        "bind",
        // Machine-wide resources one keyboard could exhaust for everyone (aio-max-nr),
        // and FIFOs (pipe buffers by another name).
        "io_setup", "io_submit", "io_cancel", "io_destroy", "io_getevents", "io_pgetevents", "mknod", "mknodat",
        // The processor's descriptor tables.
        "modify_ldt",
        // Watching files it does not own; giving files away.
        "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
        "chown", "fchown", "lchown", "fchownat",
        // Metadata: Landlock governs none of these, and an inherited or /proc descriptor
        // (fd 0, /proc/self/exe) leads to the host's own files. A keyboard needs none.
        "chmod", "fchmod", "fchmodat", "utime", "utimes", "utimensat", "futimesat",
        "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
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
    // Socket ioctls (SIOC*, 0x89xx): on the inherited channel they would answer for the
    // host's network namespace (its addresses, its hardware addresses).
    if (rc == 0) rc = deny(ctx, eperm, "ioctl", 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xff00U, 0x8900U));
    // No signals on I/O to another process.
    if (rc == 0) rc = deny(ctx, eperm, "fcntl", 1, SCMP_A1(SCMP_CMP_EQ, F_SETOWN));
    if (rc == 0) rc = deny(ctx, eperm, "fcntl", 1, SCMP_A1(SCMP_CMP_EQ, 15 /* F_SETOWN_EX */));
#if defined(__x86_64__)
    // Calls newer than Debian 12's libseccomp knows by name (so by number): mount listing, cachestat.
    static const int newer[] = { 451 /* cachestat */, 452 /* fchmodat2 */, 457 /* statmount */, 458 /* listmount */,
                                 463 /* setxattrat */, 466 /* removexattrat */, 467 /* open_tree_attr */ };
    for (size_t i = 0; rc == 0 && i < sizeof newer / sizeof *newer; i++)
        rc = seccomp_rule_add(ctx, eperm, newer[i], 0);
#endif
    // Sockets: Unix ones always; IPv4/IPv6 (not raw) with open access; packet, netlink and the rest never.
    // Without open access nothing of its groups is its to write, so no lock to take
    // (a lock on a read-only descriptor would hold up the app's and other keyboards' writes).
    if (rc == 0 && !open_access) rc = deny(ctx, eperm, "flock", 0);
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

int kbh_install_seccomp(const kbh_sandbox_request *q, char *err, size_t size) {
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
