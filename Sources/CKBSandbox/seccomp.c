// The extension process's seccomp filter: default-deny, with the calls a keyboard may
// make listed in allowlist.c; built ahead (kbh_sandbox_prepare) and installed by
// kbh_sandbox_apply in sandbox.c.
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
#include <netinet/in.h>
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

// Record mode, for deriving the allowlist (allowlist.c), never for a user's build (x86-64
// only): build with -Xcc -DKBH_SECCOMP_RECORD='"/tmp/record.log"' and every call the list
// lacks goes through, written to that file once per process and call as "passed BUNDLE
// NUMBER NAME ARG0 ARG1 ARG2" (calls allowed on some arguments every time: their arguments
// matter). The file is opened before the keyboard's root is built, so the path is the
// host's; make it writable by everyone for the tests that run as nobody. Add
// -Xcc -DKBH_SECCOMP_RECORD_ALL=1 to record the allowed calls too (nothing is allowed
// without a trap then). Calls allowlist.c names as refused, or allows on some arguments
// only, are recorded as "refused" and still fail, so the hostile keyboard's attempts stay
// attempts.
#ifdef KBH_SECCOMP_RECORD
static int record_fd = -1;
static char record_who[128] = "?";
// Calls made again from the trap carry this in their sixth argument, which the filter lets through.
#define RECORD_COOKIE 0x6b62686f73745fULL
void kbh_seccomp_record_open(const char *container) {
    if (record_fd < 0) record_fd = open(KBH_SECCOMP_RECORD, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    const char *slash = container ? strrchr(container, '/') : NULL;
    if (slash) snprintf(record_who, sizeof record_who, "%s", slash + 1);
}
static long raw_syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5) {
    long ret;
    register long r10 __asm__("r10") = a3, r8 __asm__("r8") = a4, r9 __asm__("r9") = a5;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    return ret;
}
#else
void kbh_seccomp_record_open(const char *container) { (void)container; }
#endif

static void say(const char *a, const char *b, const char *c) {
    (void)!write(2, a, strlen(a));
    (void)!write(2, b, strlen(b));
    (void)!write(2, c, strlen(c));
}

static void answer(void *context, long value) {
    ucontext_t *uc = context;
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RAX] = value;
#elif defined(__aarch64__)
    uc->uc_mcontext.regs[0] = (unsigned long long)value;
#else
    (void)uc; (void)value;
#endif
}

// A socket's buffer size, which setsockopt may not change: its name, or NULL.
static const char *buffer_option(long level, long name) {
    /* kept by what it closes with data unsent, after it ends (allowlist.c) */
    if (level == IPPROTO_TCP && name == 18) return "setsockopt(TCP_USER_TIMEOUT)";
    if (level != SOL_SOCKET) return NULL;
    switch (name) {
    case SO_SNDBUF: return "setsockopt(SO_SNDBUF)";
    case SO_RCVBUF: return "setsockopt(SO_RCVBUF)";
    case SO_SNDBUFFORCE: return "setsockopt(SO_SNDBUFFORCE)";
    case SO_RCVBUFFORCE: return "setsockopt(SO_RCVBUFFORCE)";
    case SO_RCVLOWAT: return "setsockopt(SO_RCVLOWAT)";  /* raises a TCP socket's receive buffer */
    }
    return NULL;
}

// An open file description lock, which nothing could count: its name, or NULL.
static const char *ofd_lock(long command) {
    switch (command) {
    case F_OFD_SETLK: return "fcntl(F_OFD_SETLK)";
    case F_OFD_SETLKW: return "fcntl(F_OFD_SETLKW)";
    }
    return NULL;
}

// mmap's flags: which kind of memory the budget could not follow, or NULL.
static const char *unseen_mapping(long flags) {
    if (flags & MAP_HUGETLB) return "mmap(MAP_HUGETLB)";
    if ((flags & MAP_ANONYMOUS) && (flags & MAP_SHARED)) return "mmap(MAP_SHARED | MAP_ANONYMOUS)";
    if (flags & MAP_LOCKED) return "mmap(MAP_LOCKED)";
    return NULL;
}

// A call closed because the memory it holds would escape the budget: which one, or NULL.
static const char *closed_memory_call(int nr, void *context) {
    ucontext_t *uc = context;
    (void)uc;
    switch (nr) {
    case SCMP_SYS(memfd_create): return "memfd_create";
    case SCMP_SYS(pipe2): return "pipe2";
#if defined(__x86_64__)
    case SCMP_SYS(memfd_secret): return "memfd_secret";
    case SCMP_SYS(pipe): return "pipe";
    case SCMP_SYS(prctl): return uc->uc_mcontext.gregs[REG_RDI] == PR_SET_THP_DISABLE ? "prctl(PR_SET_THP_DISABLE)" : NULL;
    case SCMP_SYS(mmap): return unseen_mapping(uc->uc_mcontext.gregs[REG_R10]);
    case SCMP_SYS(setsockopt): return buffer_option(uc->uc_mcontext.gregs[REG_RSI], uc->uc_mcontext.gregs[REG_RDX]);
    case SCMP_SYS(fcntl): return ofd_lock(uc->uc_mcontext.gregs[REG_RSI]);
#elif defined(__aarch64__)
    case SCMP_SYS(prctl): return uc->uc_mcontext.regs[0] == PR_SET_THP_DISABLE ? "prctl(PR_SET_THP_DISABLE)" : NULL;
    case SCMP_SYS(mmap): return unseen_mapping((long)uc->uc_mcontext.regs[3]);
    case SCMP_SYS(setsockopt): return buffer_option((long)uc->uc_mcontext.regs[1], (long)uc->uc_mcontext.regs[2]);
    case SCMP_SYS(fcntl): return ofd_lock((long)uc->uc_mcontext.regs[1]);
#endif
    }
    return NULL;
}

// Every call the filter refuses by default traps here (as do the closed memory calls): the
// handler writes one line to the keyboard's log, the first time for each call, and makes
// the call return -EPERM. A keyboard that replaces the handler, or blocks SIGSYS, gets the
// SIGSYS itself and ends: nothing opens.
static void refused_call(int sig, siginfo_t *info, void *context) {
    (void)sig;
    if (info->si_code != 1 /* SYS_SECCOMP */) return;
    int nr = info->si_syscall;
    const char *memory = closed_memory_call(nr, context);
    if (memory) {
        say("kbhost sandbox: ", memory, " is closed to keyboards: memory held that way would escape the memory budget (EPERM)\n");
        answer(context, -EPERM);
        return;
    }
    bool by_argument = false;
    const char *name = kbh_seccomp_call_name(nr, &by_argument);
#ifdef KBH_SECCOMP_RECORD
    ucontext_t *uc = context;
    greg_t *r = uc->uc_mcontext.gregs;
    bool refused = kbh_seccomp_call_refused(nr);
    static unsigned long recorded[1024 / (8 * sizeof(unsigned long))];
    const size_t b = 8 * sizeof(unsigned long);
    if (by_argument || nr < 0 || nr >= 1024 ||
        !(__atomic_fetch_or(&recorded[(size_t)nr / b], 1UL << ((size_t)nr % b), __ATOMIC_RELAXED) & (1UL << ((size_t)nr % b)))) {
        char line[256];
        int n = snprintf(line, sizeof line, "%s %s %d %s %llx %llx %llx\n", refused ? "refused" : "passed", record_who, nr,
                         name ? name : "?", (unsigned long long)r[REG_RDI], (unsigned long long)r[REG_RSI],
                         (unsigned long long)r[REG_RDX]);
        if (record_fd >= 0 && n > 0) raw_syscall6(SYS_write, record_fd, (long)line, n, 0, 0, (long)RECORD_COOKIE);
    }
    if (!refused) {
        answer(context, raw_syscall6(nr, r[REG_RDI], r[REG_RSI], r[REG_RDX], r[REG_R10], r[REG_R8], (long)RECORD_COOKIE));
        return;
    }
#endif
    // One line per call, the first time (a bit per call number; beyond them, every time).
    static unsigned long said[1024 / (8 * sizeof(unsigned long))];
    const size_t bits = 8 * sizeof(unsigned long);
    bool first = nr < 0 || (size_t)nr >= 1024 ||
                 !(__atomic_fetch_or(&said[(size_t)nr / bits], 1UL << ((size_t)nr % bits), __ATOMIC_RELAXED) & (1UL << ((size_t)nr % bits)));
    if (first) {
        char number[32];
        if (!name) snprintf(number, sizeof number, "system call %d", nr);
        say("kbhost sandbox: ", name ? name : number,
            by_argument ? " is not allowed to keyboards with these arguments (EPERM)\n" : " is not allowed to keyboards (EPERM)\n");
    }
    answer(context, -EPERM);
}

static uint32_t trap_action(void) {
#if defined(__x86_64__) || defined(__aarch64__)
    return SCMP_ACT_TRAP;
#else
    return SCMP_ACT_ERRNO(EPERM);
#endif
}

static int install_refusal_handler(char *err, size_t size) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = refused_call;
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
    // Default-deny: what allowlist.c does not allow traps, and the handler above makes it EPERM.
    scmp_filter_ctx ctx = seccomp_init(trap_action());
    if (!ctx) {
        kbh_say(err, size, "sandbox: libseccomp could not start a filter");
        return -1;
    }
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    // One filter for the native architecture only: i386 (int 0x80) and x32 numbers,
    // which could reach calls by other numbers, kill the process.
    if (rc == 0 && seccomp_arch_native() == SCMP_ARCH_X86_64) {
        if (seccomp_arch_exist(ctx, SCMP_ARCH_X32) == 0) rc = seccomp_arch_remove(ctx, SCMP_ARCH_X32);
    }
    // A chain, not libseccomp's binary tree (SCMP_FLTATR_CTL_OPTIMIZE 2): the tree costs
    // 0.08 ms more to build at every load, and the calls a key makes come first in the
    // chain anyway (allowlist.c gives them priority).
    if (rc == 0) rc = kbh_seccomp_policy(ctx, open_access, (scmp_datum_t)getpid());
#ifdef KBH_SECCOMP_RECORD_ALL
    // Every call traps and is recorded, but the way back from the trap and the way out.
    static const int through[] = { SCMP_SYS(rt_sigreturn), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(restart_syscall) };
    for (size_t i = 0; rc == 0 && i < sizeof through / sizeof *through; i++) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, through[i], 0);
#endif
#ifdef KBH_SECCOMP_RECORD
    for (int nr = 0; rc == 0 && nr < 470; nr++)
        if (!kbh_seccomp_call_refused(nr) && nr != SCMP_SYS(clone) && nr != SCMP_SYS(clone3))
            (void)seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A5(SCMP_CMP_EQ, RECORD_COOKIE));
#endif
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
    if (install_refusal_handler(err, size) < 0) return -1;
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
