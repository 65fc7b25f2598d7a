// The extension process's namespaces: what a keyboard can even name.
//
// At start (kbh_isolate_start), before the handshake, the worker enters new
// user, mount, PID, IPC and UTS namespaces and forks twice:
//
//     launcher (the pid the host spawned; host's PID namespace)
//       └─ init (pid 1 of the new PID namespace: reaps, relays the status)
//            └─ keyboard process (pid 2: the worker that loads the plugin)
//
// The keyboard process is not pid 1 because an init ignores the signals it
// sends itself (abort() would end as SIGSEGV, not SIGABRT). The init passes
// the keyboard's wait status to the launcher over a pipe, and the launcher
// ends the same way, so the host still sees "ended by signal SIGABRT". Each
// dies with its parent (PR_SET_PDEATHSIG), and the PID namespace dies with
// its init: killing the launcher ends all three.
//
// At load (kbh_isolate_filesystem, in filesystem.c), the keyboard process builds its root:
// a read-only tmpfs holding, at their usual paths, only what kbh_sandbox.h's
// request lists, then pivots into it. Without open access it also enters a
// network namespace of its own (a loopback that is down).
#define _GNU_SOURCE
#include "kbh_sandbox.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int saved = errno;
    close(fd);
    errno = saved;
    return w == (ssize_t)n ? 0 : -1;
}

static void close_from_to(unsigned first, unsigned last) {
    if (syscall(SYS_close_range, first, last, 0) == 0) return;
    // Kernels before 5.9: one by one, up to the descriptor limit set before this (256).
    for (unsigned fd = first; fd <= last && fd < 1024; fd++) close((int)fd);
}

// Closes every descriptor but stderr and the two given (-1: none), in a few
// close_range calls rather than a thousand closes.
static void close_all_but(int keep1, int keep2, int keep3) {
    int keep[4] = { 2, keep1, keep2, keep3 };
    for (int i = 0; i < 4; i++)  // sorted, four items
        for (int j = i + 1; j < 4; j++)
            if (keep[j] < keep[i]) { int t = keep[i]; keep[i] = keep[j]; keep[j] = t; }
    unsigned from = 0;
    for (int i = 0; i < 4; i++) {
        if (keep[i] < 0 || (unsigned)keep[i] < from) continue;
        if ((unsigned)keep[i] > from) close_from_to(from, (unsigned)keep[i] - 1);
        from = (unsigned)keep[i] + 1;
    }
    close_from_to(from, ~0U);
}

// Waits for `child`; returns its wait status (or -1 if it cannot be had).
static int wait_for(pid_t child) {
    int status;
    for (;;) {
        pid_t r = waitpid(child, &status, __WALL);
        if (r == child) return status;
        if (r < 0 && errno != EINTR) return -1;
    }
}

// The launcher ends as the keyboard process ended: same exit status, same signal.
static void end_like(int status) {
    if (status >= 0 && WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);  // a mirror's core would be no use to anyone
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 70);
}

int kbh_isolate_start(bool private_network, bool own_socket_tables, char *err, size_t size) {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | (private_network ? CLONE_NEWNET : 0);
    if (unshare(flags) < 0) {
        kbh_say(err, size, "the kernel refused new user, mount, PID, IPC, UTS and network namespaces (%s)%s", strerror(errno),
            errno == EPERM || errno == ENOSPC
                ? "; unprivileged user namespaces may be disabled (user.max_user_namespaces, or a policy such as "
                  "Ubuntu's apparmor_restrict_unprivileged_userns)"
                : "");
        return 1;
    }
    // The same user inside as outside, and nothing else: no groups to gain.
    char map[64];
    if (write_file("/proc/self/setgroups", "deny") < 0) goto mapping_failed;
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    if (write_file("/proc/self/uid_map", map) < 0) goto mapping_failed;
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    if (write_file("/proc/self/gid_map", map) < 0) goto mapping_failed;

    // A network of its own gets socket tables of its own, small: the host's governor reads the
    // keyboard's /proc/PID/net/tcp (every socket it has, closed ones with data still queued
    // included), and in the machine's tables (the default) each read walks half a million
    // buckets, 5 ms. The size applies to namespaces made from this one (Linux 6.1), so the
    // keyboard's is the next; a kernel without the setting keeps the shared tables.
    if (private_network && own_socket_tables && write_file("/proc/sys/net/ipv4/tcp_child_ehash_entries", "256") == 0) {
        (void)write_file("/proc/sys/net/ipv4/udp_child_hash_entries", "256");
        if (unshare(CLONE_NEWNET) < 0) {
            kbh_say(err, size, "cannot make the keyboard's network namespace: %s", strerror(errno));
            return -1;
        }
    }
    // The host's view of that network: a sock_diag socket made in it, kept by the launcher (outside
    // the keyboard's PID namespace, out of its reach) at KBH_LAUNCHER_DIAG_FD, which the governor
    // takes with pidfd_getfd: every TCP and UDP socket of the namespace with its memory as the
    // kernel charges it, a closed one with data still queued included (see kbs_diag_socket_memory).
    // Moved to its number before anything else is made here (the status pipe could take it) and
    // before the fork: the host may ask for it the moment the keyboard says hello.
    // A second one, KBH_LAUNCHER_SWEEP_FD, is the host's to destroy what the keyboard leaves in that
    // network when it ends (UserNetwork.sweepsOnStop): a socket of its own, since a dump asked on
    // a socket another dump is using is refused (EBUSY) and the two would read each other's answers.
    int diag = -1, sweep = -1;
    if (private_network) {
        diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
        if (diag >= 0 && diag != KBH_LAUNCHER_DIAG_FD) {
            int moved = dup3(diag, KBH_LAUNCHER_DIAG_FD, O_CLOEXEC);
            close(diag);
            diag = moved;
        }
        sweep = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
        if (sweep >= 0 && sweep != KBH_LAUNCHER_SWEEP_FD) {
            int moved = dup3(sweep, KBH_LAUNCHER_SWEEP_FD, O_CLOEXEC);
            close(sweep);
            sweep = moved;
        }
    }

    int status_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) < 0) {
        kbh_say(err, size, "cannot make the status pipe: %s", strerror(errno));
        return -1;
    }
    pid_t init = fork();
    if (init < 0) {
        kbh_say(err, size, "cannot start the namespace's init: %s", strerror(errno));
        return -1;
    }
    if (init > 0) {
        // The launcher: keeps nothing of the keyboard's, waits, ends as it ended.
        close_all_but(status_pipe[0], diag, sweep);
        int status = -1;
        ssize_t got = 0;
        while (got < (ssize_t)sizeof status) {
            ssize_t n = read(status_pipe[0], (char *)&status + got, sizeof status - (size_t)got);
            if (n > 0) got += n;
            else if (n < 0 && errno == EINTR) continue;
            else break;
        }
        int init_status = wait_for(init);
        end_like(got == (ssize_t)sizeof status ? status : init_status >= 0 && WIFSIGNALED(init_status) ? init_status : -1);
    }
    // The init: pid 1 of the new PID namespace.
    if (diag >= 0) close(diag);  // the launcher's alone
    if (sweep >= 0) close(sweep);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pid_t keyboard = fork();
    if (keyboard < 0) _exit(71);
    if (keyboard > 0) {
        close_all_but(status_pipe[1], -1, -1);
        int status = wait_for(keyboard);
        (void)!write(status_pipe[1], &status, sizeof status);
        _exit(0);
    }
    // The keyboard process: pid 2. It dies with the init.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(status_pipe[0]);
    close(status_pipe[1]);
    return 0;

mapping_failed:
    kbh_say(err, size, "cannot map the user into its namespace: %s", strerror(errno));
    return -1;
}

int kbh_host_pid(void) {
    // /proc is still the host's here: "self" resolves in its PID namespace.
    char link[32];
    ssize_t n = readlink("/proc/self", link, sizeof link - 1);
    if (n <= 0) return (int)getpid();
    link[n] = 0;
    return atoi(link);
}

bool kbh_namespaces_available(void) {
    pid_t child = fork();
    if (child < 0) return false;
    if (child == 0) _exit(unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET) == 0 ? 0 : 1);
    int status = wait_for(child);
    return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The keyboard's side of the relay (slirp4netns --configure made tap0 10.0.2.100/24, the default
   route through 10.0.2.2), narrowed before the plugin runs, while this process still holds
   CAP_NET_ADMIN in the namespace: everything it sends waits in the relay's sockets, which the
   governor counts, or in its own, never in the kernel's queues on the way.
   - No IPv6 (the relay carries none): each link-local address it wrote to became a neighbour the
     kernel tried to resolve, with datagrams queued for it after their socket closed; one keyboard
     filled the whole machine's neighbour table, 1,024 entries (twelfth red team, N1).
   - Only the gateway is on the link: tap0 becomes 10.0.2.100/32 with a route to 10.0.2.2 and the
     default through it, so no address of 10.0.2.0/24 is a neighbour to resolve (the same, in IPv4).
     The relay's DNS forwarder 10.0.2.3 is reached through the gateway like any address.
   - A short device queue: what tap0 holds for the relay to read is no socket's (the tun driver
     orphans it), ~900 datagrams of 64 KiB were 58 MiB (N3). */
#include <arpa/inet.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* A device's queue length through rtnetlink (the ioctl asks for CAP_NET_ADMIN outside the namespace). */
static int set_queue_length(const char *device, unsigned length) {
    unsigned index = if_nametoindex(device);
    if (index == 0) return -1;
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (s < 0) return -1;
    struct {
        struct nlmsghdr header;
        struct ifinfomsg link;
        struct rtattr attribute;
        unsigned length;
    } request;
    memset(&request, 0, sizeof request);
    request.header.nlmsg_len = sizeof request;
    request.header.nlmsg_type = RTM_NEWLINK;
    request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    request.header.nlmsg_seq = 1;
    request.link.ifi_family = AF_UNSPEC;
    request.link.ifi_index = (int)index;
    request.attribute.rta_type = IFLA_TXQLEN;
    request.attribute.rta_len = RTA_LENGTH(sizeof request.length);
    request.length = length;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    int rc = -1;
    if (sendto(s, &request, sizeof request, 0, (struct sockaddr *)&kernel, sizeof kernel) == (ssize_t)sizeof request) {
        char answer[512];
        ssize_t n = recv(s, answer, sizeof answer, 0);
        struct nlmsghdr *h = (struct nlmsghdr *)answer;
        if (n >= (ssize_t)(sizeof *h + sizeof(struct nlmsgerr)) && h->nlmsg_type == NLMSG_ERROR) {
            int error = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
            if (error == 0) rc = 0; else errno = -error;
        } else if (n >= 0) {
            errno = EPROTO;
        }
    }
    int saved = errno;
    close(s);
    errno = saved;
    return rc;
}

static void set_ipv4(struct sockaddr *address, const char *text) {
    struct sockaddr_in *in = (struct sockaddr_in *)address;
    memset(in, 0, sizeof *in);
    in->sin_family = AF_INET;
    inet_pton(AF_INET, text, &in->sin_addr);
}

/* A route through tap0 (SIOCADDRT); one already there is no failure. */
static int add_route(int s, const char *destination, const char *mask, const char *gateway, unsigned short flags) {
    struct rtentry route;
    char device[IFNAMSIZ] = "tap0";
    memset(&route, 0, sizeof route);
    set_ipv4(&route.rt_dst, destination);
    set_ipv4(&route.rt_genmask, mask);
    set_ipv4(&route.rt_gateway, gateway);
    route.rt_flags = flags;
    route.rt_dev = device;
    int rc = ioctl(s, SIOCADDRT, &route);
    return rc < 0 && errno == EEXIST ? 0 : rc;
}

int kbh_isolate_relay_network(unsigned queue_length, char *err, size_t size) {
    /* IPv6 off (a kernel without it has no such file), a TCP socket's buffers at most 1 MiB each
       way (the machine's allow 4 and 32 MiB here): what one socket can fill between two counts, or
       keep after its peer reset it, is that; and orphans short-lived. */
    static const struct { const char *path, *value, *what; bool optional; } settings[] = {
        {"/proc/sys/net/ipv6/conf/all/disable_ipv6", "1", "turn IPv6 off", true},
        {"/proc/sys/net/ipv6/conf/default/disable_ipv6", "1", "turn IPv6 off", true},
        {"/proc/sys/net/ipv4/tcp_wmem", "4096 16384 1048576", "limit its TCP buffers", false},
        {"/proc/sys/net/ipv4/tcp_rmem", "4096 131072 1048576", "limit its TCP buffers", false},
        /* A connection it closed with data unsent gives up after one retry rather than eight: where
           the host cannot destroy what the keyboard left when it ended (a kernel without
           CONFIG_INET_DIAG_DESTROY), such orphans outlived it by minutes (fourteenth red team, F1). */
        {"/proc/sys/net/ipv4/tcp_orphan_retries", "1", "shorten its orphans' lives", true},
    };
    for (size_t i = 0; i < sizeof settings / sizeof *settings; i++) {
        if (write_file(settings[i].path, settings[i].value) < 0 && !(settings[i].optional && errno == ENOENT)) {
            kbh_say(err, size, "sandbox: cannot %s in the keyboard's network (%s): %s", settings[i].what, settings[i].path, strerror(errno));
            return -1;
        }
    }
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        kbh_say(err, size, "sandbox: cannot configure the keyboard's network: %s", strerror(errno));
        return -1;
    }
    const char *step = "its device queue";
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strncpy(ifr.ifr_name, "tap0", IFNAMSIZ - 1);
    int rc = set_queue_length("tap0", queue_length);
    if (rc == 0) {
        step = "its address";
        set_ipv4(&ifr.ifr_netmask, "255.255.255.255");
        rc = ioctl(s, SIOCSIFNETMASK, &ifr);
    }
    /* The new mask took the link's routes with it: the gateway's, then the default through it. */
    if (rc == 0) {
        step = "the route to its gateway";
        rc = add_route(s, "10.0.2.2", "255.255.255.255", "0.0.0.0", RTF_UP | RTF_HOST);
    }
    if (rc == 0) {
        step = "its default route";
        rc = add_route(s, "0.0.0.0", "0.0.0.0", "10.0.2.2", RTF_UP | RTF_GATEWAY);
    }
    int saved = errno;
    close(s);
    if (rc < 0) {
        kbh_say(err, size, "sandbox: cannot set %s in the keyboard's network (tap0): %s", step, strerror(saved));
        return -1;
    }
    return 0;
}
