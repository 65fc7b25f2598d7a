#define _GNU_SOURCE
#include "kbshims.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

int kbs_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/sock_diag.h>

#include <sys/ioctl.h>
#include <linux/sockios.h>
int kbs_unread_sent(int fd) {
    int n = 0;
    return ioctl(fd, SIOCOUTQ, &n) == 0 ? n : -1;
}

int kbs_socket_queued(int pidfd, int fd, long long *bytes, int relay) {
    int own = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    if (own < 0) return -1;
    int counted = 0;
    struct stat st;
    int domain = 0;
    socklen_t length = sizeof domain;
    if (fstat(own, &st) == 0 && S_ISSOCK(st.st_mode) && getsockopt(own, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0
        && (domain == AF_INET || domain == AF_INET6)) {
        unsigned info[SK_MEMINFO_VARS] = {0};
        length = sizeof info;
        if (getsockopt(own, SOL_SOCKET, SO_MEMINFO, info, &length) == 0) {
            // The send side is what waits in its write queue (TCP: wmem_queued) or what it has
            // charged to the socket (wmem_alloc: a UDP datagram being built with MSG_MORE waits
            // there, and wmem_queued stays 0; tenth red team, N2), whichever is more: for TCP
            // the second is part of the first.
            unsigned sent = info[SK_MEMINFO_WMEM_QUEUED] > info[SK_MEMINFO_WMEM_ALLOC] ? info[SK_MEMINFO_WMEM_QUEUED] : info[SK_MEMINFO_WMEM_ALLOC];
            *bytes = (long long)info[SK_MEMINFO_RMEM_ALLOC] + sent + info[SK_MEMINFO_BACKLOG];
            int type = 0;
            length = sizeof type;
            if (relay && getsockopt(own, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == SOCK_STREAM) {
                // Reset when the relay closes it, whatever it holds then: a socket set so only while
                // it held data could be idle at every count, then filled and reset between two (a
                // review of this change). The keyboard's own clean close reaches it as a shutdown,
                // which lingering does not change; the relay closes it once both sides are done.
                struct linger now = { 0, 0 }, wanted = { 1, 0 };
                length = sizeof now;
                if (getsockopt(own, SOL_SOCKET, SO_LINGER, &now, &length) == 0 && !(now.l_onoff && now.l_linger == 0))
                    (void)setsockopt(own, SOL_SOCKET, SO_LINGER, &wanted, sizeof wanted);
            }
            counted = 1;
        }
    }
    int saved = errno;
    close(own);
    errno = saved;
    return counted;
}

int kbs_pidfd_send_signal(int pidfd, int sig) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int kbs_waitid_pidfd(int pidfd, int nohang, int *code, int *status) {
    siginfo_t info;
    info.si_pid = 0;
    int r = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, WEXITED | (nohang ? WNOHANG : 0));
    if (r != 0) return r;
    if (info.si_pid == 0) { *code = 0; *status = 0; return 0; }
    *code = info.si_code;
    *status = info.si_status;
    return 0;
}

#include <linux/openat2.h>
#include <sys/xattr.h>
int kbs_open_path_beneath(int dirfd, const char *path) {
    struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .mode = 0,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

int kbs_has_access_acl(const char *path) {
    if (lgetxattr(path, "system.posix_acl_access", NULL, 0) >= 0) return 1;
    return errno == ENODATA || errno == ENOTSUP ? 0 : -1;
}

int kbs_open_path(const char *path) { return open(path, O_PATH | O_CLOEXEC); }

int kbs_fd_has_access_acl(int fd) {
    if (fgetxattr(fd, "system.posix_acl_access", NULL, 0) >= 0) return 1;
    return errno == ENODATA || errno == ENOTSUP ? 0 : -1;
}

int kbs_open_beneath(int dirfd, const char *path, int flags) {
    struct open_how how = { .flags = (unsigned long long)flags, .mode = 0,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

int kbs_set_pdeathsig(int sig) { return prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0); }

int kbs_limit_descriptors(int pid, unsigned long limit) {
    struct rlimit l = { limit, limit };
    return (int)syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, &l, NULL);
}
int kbs_set_no_new_privs(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }
int kbs_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

int kbs_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int kbs_dup_cloexec_above(int fd, int minimum) { return fcntl(fd, F_DUPFD_CLOEXEC, minimum); }
int kbs_set_pipe_size(int fd, int size) { return fcntl(fd, F_SETPIPE_SZ, size); }

int kbs_is_tmpfs(const char *path) {
    struct statfs s;
    if (statfs(path, &s) < 0) return -1;
    return s.f_type == 0x01021994 /* TMPFS_MAGIC */;
}

int kbs_openat_unseen(int dirfd, const char *name, int flags) {
    int fd = openat(dirfd, name, flags | O_NOATIME);
    if (fd < 0 && errno == EPERM) fd = openat(dirfd, name, flags);  /* not the owner: O_NOATIME is refused */
    return fd;
}

const char *kbs_dirent_name(const void *entry) {
    return ((const struct dirent *)entry)->d_name;
}

int kbs_openat_path(int dirfd, const char *name) {
    return openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

int kbs_set_default_thread_stack(size_t bytes) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return -1;
    int r = pthread_attr_setstacksize(&attr, bytes);
    if (r == 0) r = pthread_setattr_default_np(&attr);
    pthread_attr_destroy(&attr);
    return r;
}

int kbs_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

char **kbs_environ(void) { return environ; }
int kbs_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

#include <sys/socket.h>
int kbs_peer_uid(int fd, uid_t *uid) {
    struct ucred cred;
    socklen_t length = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
    *uid = cred.uid;
    return 0;
}

#include <stdlib.h>
#include <string.h>
int kbs_open_pty(char *slave_path, size_t length) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, slave_path, length) != 0) {
        close(master);
        return -1;
    }
    return master;
}

#include <sched.h>
int kbs_get_affinity(pid_t tid, unsigned long long *mask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(tid, sizeof set, &set) != 0) return -1;
    *mask = 0;
    for (int cpu = 0; cpu < 64; cpu++)
        if (CPU_ISSET(cpu, &set)) *mask |= 1ULL << cpu;
    return 0;
}

int kbs_set_affinity(pid_t tid, unsigned long long mask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < 64; cpu++)
        if (mask & (1ULL << cpu)) CPU_SET(cpu, &set);
    return sched_setaffinity(tid, sizeof set, &set);
}

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
static int inode_index(const unsigned long long *sorted, int count, unsigned long long inode) {
    int low = 0, high = count - 1;
    while (low <= high) {
        int middle = low + (high - low) / 2;
        if (sorted[middle] == inode) return middle;
        if (sorted[middle] < inode) low = middle + 1; else high = middle - 1;
    }
    return -1;
}

/* One sock_diag dump of the sockets of `family` and `protocol` in `states` (with the extensions
   `extensions` asks for), read into `buffer`: `each` is called with every socket listed. A dump
   the kernel says was interrupted (sockets came and went while it walked its tables: some may be
   missing) fails with EAGAIN; a kernel without that kind's sock_diag lists none. 0, or -1 with errno. */
static unsigned diag_sequence;  // one for all threads: a count replaced while stuck may still be dumping
typedef struct { struct nlmsghdr header; struct inet_diag_req_v2 request; } diag_request;

static diag_request diag_make(unsigned short type, unsigned short flags, unsigned char family, unsigned char protocol, unsigned states) {
    diag_request ask;
    memset(&ask, 0, sizeof ask);
    ask.header.nlmsg_len = sizeof ask;
    ask.header.nlmsg_type = type;
    ask.header.nlmsg_flags = NLM_F_REQUEST | flags;
    ask.header.nlmsg_seq = __atomic_add_fetch(&diag_sequence, 1, __ATOMIC_RELAXED);
    ask.request.sdiag_family = family;
    ask.request.sdiag_protocol = protocol;
    ask.request.idiag_states = states;
    return ask;
}

static int diag_dump(int diag, unsigned char family, unsigned char protocol, unsigned states, unsigned char extensions,
                     char *buffer, size_t buffer_size, void (*each)(const struct inet_diag_msg *, int length, void *), void *context) {
    diag_request ask = diag_make(SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, family, protocol, states);
    ask.request.idiag_ext = extensions;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    if (sendto(diag, &ask, sizeof ask, 0, (struct sockaddr *)&kernel, sizeof kernel) != (ssize_t)sizeof ask) return -1;
    for (;;) {
        struct sockaddr_nl from;
        socklen_t from_length = sizeof from;
        // As large as the kernel's messages may be (it sizes them after the largest read, up to
        // 32 KiB): a smaller read would cut one and lose the sockets in it.
        ssize_t received = recvfrom(diag, buffer, buffer_size, 0, (struct sockaddr *)&from, &from_length);
        if (received < 0) { if (errno == EINTR) continue; return -1; }  // SO_RCVTIMEO: EAGAIN
        if (received == 0) return -1;
        if (from.nl_pid != 0) continue;  // only the kernel's answers
        int n = (int)received;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buffer; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_seq != ask.header.nlmsg_seq) continue;
            if (h->nlmsg_flags & NLM_F_DUMP_INTR) { errno = EAGAIN; return -1; }
            if (h->nlmsg_type == NLMSG_DONE) return 0;
            if (h->nlmsg_type == NLMSG_ERROR) {
                struct nlmsgerr *e = NLMSG_DATA(h);
                // A kernel without UDP's (or IPv6's) sock_diag: that kind has no sockets to show.
                if (e->error == -ENOENT || e->error == -EAFNOSUPPORT || e->error == -EOPNOTSUPP) return 0;
                errno = -e->error;
                return -1;
            }
            if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY) continue;
            each(NLMSG_DATA(h), (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(struct inet_diag_msg)), context);
        }
    }
}

struct memory_count { const unsigned long long *known; int known_count; unsigned char *seen; long long total; int count; };

static void count_memory(const struct inet_diag_msg *m, int length, void *context) {
    struct memory_count *c = context;
    if (m->idiag_inode != 0 && c->known_count > 0) {
        int at = inode_index(c->known, c->known_count, m->idiag_inode);
        if (at >= 0) c->seen[at] = 1;
    }
    for (const struct rtattr *a = (const struct rtattr *)(m + 1); RTA_OK(a, length); a = RTA_NEXT(a, length)) {
        if (a->rta_type != INET_DIAG_SKMEMINFO || RTA_PAYLOAD(a) < SK_MEMINFO_VARS * sizeof(unsigned)) continue;
        const unsigned *v = RTA_DATA(a);
        unsigned sent = v[SK_MEMINFO_WMEM_QUEUED] > v[SK_MEMINFO_WMEM_ALLOC] ? v[SK_MEMINFO_WMEM_QUEUED] : v[SK_MEMINFO_WMEM_ALLOC];
        c->total += (long long)v[SK_MEMINFO_RMEM_ALLOC] + sent + v[SK_MEMINFO_BACKLOG];
        c->count++;
    }
}

int kbs_diag_socket_memory(int diag, const unsigned long long *known, int known_count, unsigned char *seen,
                           long long *bytes, int *sockets) {
    static const int kinds[4][2] = { {AF_INET, IPPROTO_TCP}, {AF_INET6, IPPROTO_TCP}, {AF_INET, IPPROTO_UDP}, {AF_INET6, IPPROTO_UDP} };
    static __thread char buffer[32768] __attribute__((aligned(4)));
    struct memory_count c = { known, known_count, seen, 0, 0 };
    char stale[4096];
    while (recv(diag, stale, sizeof stale, MSG_DONTWAIT) > 0) {}  // what an interrupted dump left
    for (int k = 0; k < 4; k++)
        if (diag_dump(diag, (unsigned char)kinds[k][0], (unsigned char)kinds[k][1], ~0u, 1 << (INET_DIAG_SKMEMINFO - 1),
                      buffer, sizeof buffer, count_memory, &c) < 0) return -1;
    *bytes = c.total;
    if (sockets) *sockets = c.count;
    return 0;
}

/* One request and its answer on a sock_diag socket: 0 when the kernel acknowledged it. */
static int diag_ask(int diag, void *request, size_t length, unsigned sequence) {
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    if (sendto(diag, request, length, 0, (struct sockaddr *)&kernel, sizeof kernel) != (ssize_t)length) return -1;
    for (;;) {
        char buffer[4096] __attribute__((aligned(4)));
        struct sockaddr_nl from;
        socklen_t from_length = sizeof from;
        ssize_t received = recvfrom(diag, buffer, sizeof buffer, 0, (struct sockaddr *)&from, &from_length);
        if (received < 0) { if (errno == EINTR) continue; return -1; }
        if (received == 0) return -1;
        if (from.nl_pid != 0) continue;
        int n = (int)received;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buffer; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_seq != sequence || h->nlmsg_type != NLMSG_ERROR) continue;
            struct nlmsgerr *e = NLMSG_DATA(h);
            if (e->error == 0) return 0;
            errno = -e->error;
            return -1;
        }
    }
}

enum { most_destroyed = 4096 };
struct found_sockets { int count; struct { unsigned char family; struct inet_diag_sockid id; } at[most_destroyed]; };

static void note_socket(const struct inet_diag_msg *m, int length, void *context) {
    (void)length;
    struct found_sockets *f = context;
    if (f->count == most_destroyed) return;
    f->at[f->count].family = m->idiag_family;
    f->at[f->count].id = m->id;  // its cookie included: only that very socket is destroyed
    f->count++;
}

int kbs_diag_destroy_tcp(int diag, int *destroyed) {
    const size_t buffer_size = 65536;
    struct found_sockets *found = malloc(sizeof *found);
    char *buffer = malloc(buffer_size);
    if (!found || !buffer) { free(found); free(buffer); errno = ENOMEM; return -1; }
    int gone = 0, first_error = 0;
    char stale[4096];
    while (recv(diag, stale, sizeof stale, MSG_DONTWAIT) > 0) {}
    // Every TCP socket but those in TIME-WAIT and half-open requests (which hold no queue and
    // which the kernel does not destroy this way), IPv4 then IPv6; again while a round found as
    // many as it can hold (a few rounds at most: the keyboard has ended, nothing makes more).
    const unsigned states = ~((1u << 6 /* TCP_TIME_WAIT */) | (1u << 12 /* TCP_NEW_SYN_RECV */));
    for (int round = 0; round < 8; round++) {
        found->count = 0;
        // What one family's dump found is destroyed even when the other's failed.
        if (diag_dump(diag, AF_INET, IPPROTO_TCP, states, 0, buffer, buffer_size, note_socket, found) < 0 && !first_error) first_error = errno;
        if (diag_dump(diag, AF_INET6, IPPROTO_TCP, states, 0, buffer, buffer_size, note_socket, found) < 0 && !first_error) first_error = errno;
        int stop = 0;
        for (int i = 0; i < found->count && !stop; i++) {
            diag_request ask = diag_make(SOCK_DESTROY, NLM_F_ACK, found->at[i].family, IPPROTO_TCP, ~0u);
            ask.request.id = found->at[i].id;  // its cookie included: that very socket or none
            if (diag_ask(diag, &ask, sizeof ask, ask.header.nlmsg_seq) == 0) { gone++; continue; }
            if (errno == ENOENT) continue;  // gone meanwhile
            if (!first_error) first_error = errno;
            // A kernel without CONFIG_INET_DIAG_DESTROY, or no right to: none will go. Else the next.
            stop = errno == EOPNOTSUPP || errno == EPERM;
        }
        if (stop || found->count < most_destroyed) break;
    }
    free(found);
    free(buffer);
    if (destroyed) *destroyed = gone;
    if (first_error) { errno = first_error; return -1; }
    return 0;
}

int kbs_pidfd_getfd(int pidfd, int fd) { return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0); }

int kbs_join_network(int fd) { return setns(fd, CLONE_NEWNET); }

int kbs_socket_destroy_supported(void) {
    int diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (diag < 0) return -1;
    struct timeval second = { 1, 0 };
    (void)setsockopt(diag, SOL_SOCKET, SO_RCVTIMEO, &second, sizeof second);
    // A socket that cannot exist (all zeros, no cookie): the kernel looks it up before any
    // question of rights, so ENOENT says it would destroy one, EOPNOTSUPP that it cannot.
    diag_request ask = diag_make(SOCK_DESTROY, NLM_F_ACK, AF_INET, IPPROTO_TCP, ~0u);
    int rc = diag_ask(diag, &ask, sizeof ask, ask.header.nlmsg_seq);
    int e = errno;
    close(diag);
    if (rc == 0 || e == ENOENT) return 1;
    return e == EOPNOTSUPP ? 0 : -1;
}
