/* Ways to hold memory out of the governor's sight (seventh red team): a thread with a
   descriptor table of its own, sockets of protocols /proc/net/tcp and udp do not list, and a
   process whose main thread has ended (the kernel then shows no memory for it at all). */
#include "attempts.h"

#include <pthread.h>
#include <time.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif

static int idle_thread(void *arg) {
    (void)arg;
    struct timespec nap = {0, 100 * 1000 * 1000};
    nanosleep(&nap, NULL);
    syscall(SYS_exit, 0);  /* this thread only */
    return 0;
}

/* "fdtable": a thread that shares the memory but not the descriptor table (clone without
   CLONE_FILES): what it opens, no look at /proc/PID/fd finds. */
void try_fdtable(hostile *self) {
    static char stack[64 * 1024] __attribute__((aligned(16)));
    int tid = clone(idle_thread, stack + sizeof stack, CLONE_VM | CLONE_FS | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, NULL);
    if (tid < 0) { report_errno(self, "fdtable", errno); return; }
    struct timespec wait = {0, 200 * 1000 * 1000};
    nanosleep(&wait, NULL);  /* its stack is static: it has ended before the next key */
    report_ok(self, "fdtable", "started thread %ld with a descriptor table of its own", tid);
}

static void try_socket(hostile *self, const char *what, int type, int protocol) {
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, protocol);
    if (fd < 0) { report_errno(self, what, errno); return; }
    close(fd);
    report_ok(self, what, "made a socket of protocol %ld", protocol);
}

/* "mptcp", "udplite": streams and datagrams of protocols the governor's count never sees. */
void try_mptcp(hostile *self) { try_socket(self, "mptcp", SOCK_STREAM, IPPROTO_MPTCP); }
void try_udplite(hostile *self) { try_socket(self, "udplite", SOCK_DGRAM, IPPROTO_UDPLITE); }

static int leader_mib;

static void *holder(void *arg) {
    (void)arg;
    struct timespec after = {0, 500 * 1000 * 1000};  /* once the main thread has ended */
    nanosleep(&after, NULL);
    size_t size = (size_t)leader_mib << 20;
    char *p = malloc(size);
    if (p) for (size_t i = 0; i < size; i += 4096) p[i] = 1;
    struct timespec nap = {30, 0};
    nanosleep(&nap, NULL);
    return p;
}

/* "leader N": the main thread ends on its own (pthread_exit) while another thread lives on
   and then takes N MiB (64 unless told): /proc/PID/status then holds no memory lines and
   statm is zeros. Never answers: the key ends with the keyboard. */
void try_leader(hostile *self) {
    leader_mib = number_in_document(self, "leader", 64);
    pthread_t t;
    int e = pthread_create(&t, NULL, holder, NULL);
    if (e) { report_errno(self, "leader", e); return; }
    struct timespec wait = {0, 300 * 1000 * 1000};
    nanosleep(&wait, NULL);
    pthread_exit(NULL);
}

/* "shared-anon N": N MiB (64 unless told) of shared anonymous memory written, then dropped
   from the mapping with MADV_DONTNEED: the object keeps the pages, RssShmem no longer shows
   them. Read back after a second to show they were kept. */
void try_shared_anon(hostile *self) {
    int mib = number_in_document(self, "shared-anon", 64);
    size_t size = (size_t)mib << 20;
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { report_errno(self, "shared-anon", errno); return; }
    for (size_t i = 0; i < size; i += 4096) p[i] = 's';
    madvise(p, size, MADV_DONTNEED);
    hold_a_second();
    long kept = 0;
    for (size_t i = 0; i < size; i += 4096) kept += p[i] == 's';
    munmap(p, size);
    report_ok(self, "shared-anon", "kept %ld pages of shared memory out of its mapping", kept);
}

/* "devzero": /dev/zero mapped shared is shared anonymous memory by another name. */
void try_devzero(hostile *self) {
    int fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "devzero", errno); return; }
    void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = p == MAP_FAILED ? errno : 0;
    close(fd);
    if (e) { report_errno(self, "devzero", e); return; }
    munmap(p, 1 << 20);
    report_ok(self, "devzero", "mapped %ld MiB of /dev/zero shared", 1);
}

/* "rt": a real-time thread (SCHED_FIFO) for itself, which would run before everything else on
   its CPU. Allowed where RLIMIT_RTPRIO lets the user (an audio group's `rtprio 95`). */
void try_rt(hostile *self) {
    struct sched_param p = {.sched_priority = 1};
    if (sched_setscheduler(0, SCHED_FIFO, &p) < 0) { report_errno(self, "rt", errno); return; }
    p.sched_priority = 0;
    sched_setscheduler(0, SCHED_OTHER, &p);
    report_ok(self, "rt", "ran at real-time priority %ld", 1);
}

/* "hidden-dir N": a folder of mode 0300 (search and write, no read) in its container, N MiB
   (64 unless told) written to a file inside: a walk that cannot list the folder never sees it. */
void try_hidden_dir(hostile *self) {
    int mib = number_in_document(self, "hidden-dir", 64);
    char path[1200];
    snprintf(path, sizeof path, "%s/hidden", container(self));
    if (mkdir(path, 0300) < 0 && errno != EEXIST) { report_errno(self, "hidden-dir", errno); return; }
    snprintf(path, sizeof path, "%s/hidden/blob", container(self));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { report_errno(self, "hidden-dir", errno); return; }
    int e = write_mib(fd, mib);
    close(fd);
    if (e) { report_errno(self, "hidden-dir", e); return; }
    hold_a_second();
    report_ok(self, "hidden-dir", "holds %ld MiB in a folder of mode 0300", mib);
}

/* "umask": a umask that takes the owner's own bits away (folders made then are unreadable). */
void try_umask(hostile *self) {
    errno = 0;
    long old = syscall(SYS_umask, 0500);
    if (old < 0) { report_errno(self, "umask", errno); return; }
    syscall(SYS_umask, old);
    report_ok(self, "umask", "set umask 0500 (was %lo)", old);
}

/* "md5sig", "mcast": kernel memory attached to a socket through its protocol's options: a
   TCP MD5 signature key, an IPv6 multicast membership (interface-local, on lo). */
void try_md5sig(hostile *self) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, "md5sig", errno); return; }
    struct {
        struct sockaddr_storage addr;
        unsigned char flags, prefix;
        unsigned short keylen;
        unsigned ifindex;
        unsigned char key[80];
    } sig;
    memset(&sig, 0, sizeof sig);
    struct sockaddr_in *peer = (struct sockaddr_in *)&sig.addr;
    peer->sin_family = AF_INET;
    peer->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sig.keylen = 16;
    int r = setsockopt(fd, IPPROTO_TCP, 14 /* TCP_MD5SIG */, &sig, sizeof sig);
    int e = errno;
    close(fd);
    if (r < 0) { report_errno(self, "md5sig", e); return; }
    report_ok(self, "md5sig", "attached %ld TCP MD5 key", 1);
}

void try_mcast(hostile *self) {
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, "mcast", errno); return; }
    struct ipv6_mreq m;
    memset(&m, 0, sizeof m);
    inet_pton(AF_INET6, "ff01::4242", &m.ipv6mr_multiaddr);
    m.ipv6mr_interface = 1;  /* lo */
    int r = setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m, sizeof m);
    int e = errno;
    close(fd);
    if (r < 0) { report_errno(self, "mcast", e); return; }
    report_ok(self, "mcast", "joined %ld multicast group", 1);
}

/* "ri N": one call that inserts N thousand regional indicators (1,000 unless told: 2 Mi UTF-16
   units), then sets marked text 32 times at the end of the run. Within KBH_MAX_CALL_EDIT_WORK by
   count, but each edit there makes the host walk back over the whole run to find a cluster's
   boundary (flags pair up): 3.6 s of the host's time for one call (eighth red team, A). */
void try_ri(hostile *self) {
    int thousands = number_in_document(self, "ri", 1000);
    size_t count = (size_t)thousands * 1000;
    char *flags = malloc(count * 4 + 1);
    if (!flags) { report_errno(self, "ri", ENOMEM); return; }
    for (size_t i = 0; i < count; i++) memcpy(flags + 4 * i, "\xF0\x9F\x87\xA6", 4);  /* U+1F1E6 */
    flags[count * 4] = 0;
    self->host->insert_text(self->host->ctx, flags);
    free(flags);
    for (int i = 0; i < 32; i++) self->host->set_marked_text(self->host->ctx, i % 2 ? "xy" : "x", 0, 0);
    self->host->unmark_text(self->host->ctx);
}

/* "proc-task": what /proc/self/net and the mount table hide, through a thread's folder
   (/proc/self/task/TID/net/unix, .../mountinfo). */
void try_proc_task(hostile *self) {
    const char *names[] = { "net/unix", "mountinfo" };
    long total = 0;
    for (int i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "/proc/self/task/%ld/%s", (long)syscall(SYS_gettid), names[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) { report_errno(self, "proc-task", errno); return; }
        char buf[4096];
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0) total += n;
        close(fd);
    }
    report_ok(self, "proc-task", "read %ld bytes of its thread's net/unix and mountinfo", total);
}

/* "pass-fd": a file of its container sent over its channel to the host (SCM_RIGHTS on fd 3)
   and closed: the descriptor waits in the host's receive queue, held by no process. */
void try_pass_fd(hostile *self) {
    char path[1200];
    snprintf(path, sizeof path, "%s/passed", container(self));
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { report_errno(self, "pass-fd", errno); return; }
    unlink(path);
    char byte = 0;
    struct iovec iov = {&byte, 1};
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t n = sendmsg(3, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    int e = errno;
    close(fd);
    if (n < 0) { report_errno(self, "pass-fd", e); return; }
    report_ok(self, "pass-fd", "parked %ld descriptor in the host's queue", 1);
}

/* "wide-level": setsockopt with a level whose low 32 bits are SOL_SOCKET's (the kernel reads
   an int): SO_RCVBUF raised past what the filter allows, if a 64-bit comparison lets it. */
void try_wide_level(hostile *self) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, "wide-level", errno); return; }
    int size = 8 << 20;
    long r = syscall(SYS_setsockopt, fd, 0x100000000L | SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    int e = errno;
    close(fd);
    if (r < 0) { report_errno(self, "wide-level", e); return; }
    report_ok(self, "wide-level", "set SO_RCVBUF to %ld through a wide level", size);
}

/* "linger": SO_LINGER on a TCP socket, whose close then waits for its peer (in whichever process
   holds the last reference: the governor's, while it counts the socket). */
void try_linger(hostile *self) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, "linger", errno); return; }
    struct linger l = {1, 1000};
    int r = setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    int e = errno;
    close(fd);
    if (r < 0) { report_errno(self, "linger", e); return; }
    report_ok(self, "linger", "set SO_LINGER to %ld s", 1000);
}

/* TCP_USER_TIMEOUT of an hour: what a connection closed with data unsent keeps after the
   keyboard has ended, where nothing destroys it (fourteenth red team, F1). */
void try_user_timeout(hostile *self) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, "user-timeout", errno); return; }
    unsigned timeout = 3600000;
    int r = setsockopt(fd, IPPROTO_TCP, 18 /* TCP_USER_TIMEOUT */, &timeout, sizeof timeout);
    int e = errno;
    close(fd);
    if (r < 0) { report_errno(self, "user-timeout", e); return; }
    report_ok(self, "user-timeout", "set TCP_USER_TIMEOUT to %u s", timeout / 1000);
}

/* "vmas N": N one-page private mappings of a file in its container, alternating protections so
   that none merges (20,000 unless told), held a second: each is kernel memory, and a governor
   that reads them all to find deleted files pays for every one (ninth red team, L). */
void try_vmas(hostile *self) {
    int count = number_in_document(self, "vmas", 20000);
    char path[1200];
    snprintf(path, sizeof path, "%s/vmas", container(self));
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { report_errno(self, "vmas", errno); return; }
    if (ftruncate(fd, 4096) < 0) { report_errno(self, "vmas", errno); close(fd); return; }
    char *base = mmap(NULL, (size_t)count * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) { report_errno(self, "vmas", errno); close(fd); return; }
    int made = 0;
    for (; made < count; made++) {
        void *p = mmap(base + (size_t)made * 4096, 4096, made % 2 ? PROT_READ : PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
        if (p == MAP_FAILED) break;
    }
    close(fd);
    hold_a_second();
    report_ok(self, "vmas", "made %ld mappings", made);
}

/* Locked memory by another name: mmap(MAP_LOCKED), where mlock is refused. */
void try_map_locked(hostile *self) {
    char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
    if (p == MAP_FAILED) { report_errno(self, "map-locked", errno); return; }
    munmap(p, 1 << 20);
    report(self, "map-locked", 1, "locked 1 MiB in memory");
}

/* Its own command line (/proc/self/cmdline, which it may read) and its own writable memory: does
   either name the host's pid (the worker's --parent argument once, KBHOST_PARENT now)? */
static const char *pid_after(const char *p, const char *end, const char *key, size_t key_length) {
    for (; p + key_length + 1 < end; p++) {
        p = memchr(p, key[0], (size_t)(end - p - key_length - 1));
        if (!p) return NULL;
        if (memcmp(p, key, key_length) == 0 && p[key_length] >= '1' && p[key_length] <= '9') return p + key_length;
    }
    return NULL;
}

void try_cmdline(hostile *self) {
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "cmdline", errno); return; }
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) { report_errno(self, "cmdline", errno); return; }
    for (ssize_t i = 0; i < n; i++) if (buf[i] == 0) buf[i] = ' ';
    buf[n] = 0;
    const char *parent = strstr(buf, "--parent ");
    if (parent) { report_ok(self, "cmdline", "names the host's pid %ld", atol(parent + 9)); return; }
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps) { report_errno(self, "cmdline", errno); return; }
    char line[512];
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || strncmp(perms, "rw", 2) != 0) continue;
        const char *found = pid_after((const char *)start, (const char *)end, "KBHOST_PARENT=", 14);
        if (!found) found = pid_after((const char *)start, (const char *)end, "--parent\0", 9);
        if (found) {
            fclose(maps);
            report_ok(self, "cmdline", "its memory names the host's pid %ld", atol(found));
            return;
        }
    }
    fclose(maps);
    report_ok(self, "cmdline", "read %ld bytes naming nothing of the host's, nor does its memory", (long)n);
}
