/* Calls an allowlist refuses that a deny list forgot: leases and dnotify on files it
   shares, its personality, a machine-wide sync, what a call tells of another process,
   the kernel's log and its performance counters; and a 32-bit system call (int 0x80). */
#include "attempts.h"

#include <linux/perf_event.h>
#include <sys/personality.h>
#include <sys/sysinfo.h>

/* Its group's lock file, which the host opens for writing: a read lease on it would
   hold up that open for up to lease-break-time (45 s). */
void try_lease(hostile *self) {
    const char *dir = group_dir(self);
    if (!dir) { report(self, "lease", 0, "no such folder"); return; }
    char path[1200];
    snprintf(path, sizeof path, "%s/Library/Preferences/.%s.lock", dir, GROUP);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "lease", errno); return; }
    int rc = fcntl(fd, F_SETLEASE, F_RDLCK), e = errno;
    if (rc == 0) fcntl(fd, F_SETLEASE, F_UNLCK);
    close(fd);
    if (rc < 0) { report_errno(self, "lease", e); return; }
    report(self, "lease", 1, "took a read lease on its group's lock file");
}

/* dnotify: a signal whenever the app adds a file to its group (inotify by another name). */
void try_dnotify(hostile *self) {
    const char *dir = group_dir(self);
    if (!dir) { report(self, "dnotify", 0, "no such folder"); return; }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "dnotify", errno); return; }
    int rc = fcntl(fd, F_NOTIFY, DN_CREATE | DN_MULTISHOT), e = errno;
    close(fd);
    if (rc < 0) { report_errno(self, "dnotify", e); return; }
    report(self, "dnotify", 1, "watches its group's folder");
}

/* READ_IMPLIES_EXEC: every readable mapping executable from then on. */
void try_personality(hostile *self) {
    int before = personality(0xffffffff);
    if (personality(READ_IMPLIES_EXEC) < 0 || before < 0) { report_errno(self, "personality", errno); return; }
    int now = personality(0xffffffff);
    personality((unsigned long)before);
    report_ok(self, "personality", "set READ_IMPLIES_EXEC (personality %#lx)", now);
}

/* Every dirty page of the machine written out, as often as it likes. */
void try_sync(hostile *self) {
    if (syscall(SYS_sync) < 0) { report_errno(self, "sync", errno); return; }
    report(self, "sync", 1, "flushed the machine's dirty pages");
}

/* What the kernel tells of another process without any permission. */
void try_capget(hostile *self) {
    struct { unsigned version; int pid; } header = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, victim(self)};
    struct { unsigned effective, permitted, inheritable; } data[2];
    if (syscall(SYS_capget, &header, data) < 0) { report_errno(self, "capget", errno); return; }
    report_ok(self, "capget", "read the victim's capabilities (%#lx)", (long)data[0].effective);
}
void try_getsid(hostile *self) {
    pid_t sid = getsid(victim(self));
    if (sid < 0) { report_errno(self, "getsid", errno); return; }
    report_ok(self, "getsid", "the victim's session is %ld", sid);
}

/* The machine: its process count and uptime, its kernel's log, a counter on the victim. */
void try_sysinfo(hostile *self) {
    struct sysinfo info;
    if (sysinfo(&info) < 0) { report_errno(self, "sysinfo", errno); return; }
    report_ok(self, "sysinfo", "the machine runs %ld tasks", info.procs);
}
void try_syslog(hostile *self) {
    char buf[256];
    long n = syscall(SYS_syslog, 3 /* SYSLOG_ACTION_READ_ALL */, buf, (long)sizeof buf);
    if (n < 0) { report_errno(self, "syslog", errno); return; }
    report_ok(self, "syslog", "read %ld bytes of the kernel's log", n);
}
void try_perf(hostile *self) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.exclude_kernel = 1;
    long fd = syscall(SYS_perf_event_open, &attr, victim(self), -1, -1, 0);
    if (fd < 0) { report_errno(self, "perf", errno); return; }
    close((int)fd);
    report(self, "perf", 1, "counts the victim's time");
}
void try_userfaultfd(hostile *self) {
    long fd = syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */);
    if (fd < 0) { report_errno(self, "userfaultfd", errno); return; }
    close((int)fd);
    report(self, "userfaultfd", 1, "made a userfaultfd");
}

/* getpid by the i386 table (int 0x80): the filter is for x86-64 numbers only, so it
   must end the process. Only reached on x86-64. */
void try_int80(hostile *self) {
#if defined(__x86_64__)
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L /* i386 getpid */) : "memory");
    if (r < 0) { report_errno(self, "int80", (int)-r); return; }
    report(self, "int80", 1, "a 32-bit system call went through");
#else
    report(self, "int80", 0, "not an x86-64 machine");
#endif
}

/* Another organization's App Group, named in its manifest ("group NAME" in the
   document): the host's path for it, or where it would be (beside its own container). */
void try_named_group(hostile *self) {
    const char *before = self->host->document_context_before_input(self->host->ctx);
    const char *at = before ? strstr(before, "group ") : NULL;
    char name[128] = "";
    if (at) sscanf(at + 6, "%127s", name);
    const char *given = KBH_HOST_HAS(self->host, group_container_path) ? self->host->group_container_path(self->host->ctx, name) : NULL;
    char path[1400];
    if (given) snprintf(path, sizeof path, "%s/secret.txt", given);
    else snprintf(path, sizeof path, "%s/../../Groups/%s/secret.txt", container(self), name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "named-group", errno); return; }
    char buf[64] = "";
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    char detail[200];
    snprintf(detail, sizeof detail, "read \"%.*s\" (%s by the host)", (int)(n > 0 ? n : 0), buf, given ? "given" : "not given");
    report(self, "named-group", 1, detail);
}

/* Sets `option` to 64 MiB on a new socket of `type` and reports its receive buffer then as `shown`. */
static void raise_receive_buffer(hostile *self, const char *what, int type, int option, const char *shown) {
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, what, errno); return; }
    int size = 64 << 20;
    int rc = setsockopt(fd, SOL_SOCKET, option, &size, sizeof size), e = errno;
    int got = 0;
    socklen_t length = sizeof got;
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &length);
    close(fd);
    if (rc < 0) { report_errno(self, what, e); return; }
    report_ok(self, what, shown, (long)got);
}

/* With open access: a UDP socket's receive queue raised to the machine's maximum. Its
   datagrams are kernel memory its footprint never shows; 200 such sockets filling each
   other held 1.59 GB (fourth red team, N5). */
void try_rcvbuf(hostile *self) {
    raise_receive_buffer(self, "rcvbuf", SOCK_DGRAM, SO_RCVBUF, "a receive queue of %ld bytes");
}

/* SO_RCVLOWAT, which on TCP raises the receive buffer as SO_RCVBUF would. */
void try_rcvlowat(hostile *self) {
    raise_receive_buffer(self, "rcvlowat", SOCK_STREAM, SO_RCVLOWAT, "a receive buffer of %ld bytes");
}

/* A pidfd of its channel's peer, the host (SO_PEERPIDFD, Linux 6.5): a handle on a process outside
   its PID namespace (twelfth red team: every use of it was refused, but no keyboard needs one).
   Also asked with the upper halves of the level and the option set, which the kernel ignores (it
   reads ints) and a filter comparing 64 bits does not (a review found that way past a rule of
   inequality). */
void try_peer_pidfd(hostile *self) {
    static const unsigned long long high = 1ULL << 32;
    const unsigned long long asked[3][2] = { {SOL_SOCKET, 77}, {SOL_SOCKET | high, 77}, {SOL_SOCKET, 77 | high} };
    int error = 0;
    for (int i = 0; i < 3; i++) {
        int pidfd = -1;
        socklen_t length = sizeof pidfd;
        if (syscall(SYS_getsockopt, 3, asked[i][0], asked[i][1], &pidfd, &length) == 0) {
            close(pidfd);
            report_ok(self, "peer-pidfd", "got a pidfd of its channel's peer (way %ld)", i);
            return;
        }
        error = errno;
    }
    report_errno(self, "peer-pidfd", error);
}

/* Core files: with its limit raised, a crash it causes itself leaves a core of its whole memory
   where it runs, its container (on a tmpfs home, memory no keyboard holds any more; with a
   core_pattern piping to a helper, work done by root outside its namespaces). */
void try_core(hostile *self) {
    struct rlimit all = {RLIM_INFINITY, RLIM_INFINITY};
    if (setrlimit(RLIMIT_CORE, &all) < 0) { report_errno(self, "core", errno); return; }
    report(self, "core", 1, "may leave core files of any size");
}

/* renameat2(RENAME_WHITEOUT): a rename that leaves a character device (0:0) behind, mknod by
   another name. */
void try_whiteout(hostile *self) {
    char from[1200], to[1200];
    snprintf(from, sizeof from, "%s/whiteout-from", container(self));
    snprintf(to, sizeof to, "%s/whiteout-to", container(self));
    int fd = open(from, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { report_errno(self, "whiteout", errno); return; }
    close(fd);
    long rc = syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 4 /* RENAME_WHITEOUT */);
    int e = errno;
    struct stat st;
    int device = rc == 0 && lstat(from, &st) == 0 && S_ISCHR(st.st_mode);
    unlink(from);
    unlink(to);
    if (rc < 0) { report_errno(self, "whiteout", e); return; }
    report(self, "whiteout", device, device ? "left a whiteout device in its container" : "renamed, but no device was left");
}
