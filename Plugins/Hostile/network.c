/* The network: sockets of every kind, to the host, the tests and the daemon. */
#include "attempts.h"

#include <net/if.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

void try_tcp(hostile *self) {
    int port = port_from_document(self);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { report_errno(self, "tcp", errno); return; }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = host_address(self)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { int e = errno; close(fd); report_errno(self, "tcp", e); return; }
    ssize_t n = send(fd, "hostile", 7, MSG_NOSIGNAL);
    int e = errno;
    close(fd);
    if (n < 0) { report_errno(self, "tcp", e); return; }
    char detail[128];
    snprintf(detail, sizeof detail, "sent %zd bytes to %s:%d", n, host_address_text(self), port);
    report(self, "tcp", 1, detail);
}

void try_udp(hostile *self) {
    int port = port_from_document(self);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) { report_errno(self, "udp", errno); return; }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = host_address(self)};
    ssize_t n = sendto(fd, "hostile", 7, 0, (struct sockaddr *)&a, sizeof a);
    int e = errno;
    close(fd);
    if (n < 0) { report_errno(self, "udp", e); return; }
    char detail[128];
    snprintf(detail, sizeof detail, "sent %zd bytes to %s:%d", n, host_address_text(self), port);
    report(self, "udp", 1, detail);
}

static void try_socket(hostile *self, const char *what, int domain, int type, int protocol) {
    int fd = socket(domain, type, protocol);
    if (fd < 0) { report_errno(self, what, errno); return; }
    close(fd);
    report(self, what, 1, "opened a socket");
}

void try_raw(hostile *self) { try_socket(self, "raw", AF_INET, SOCK_RAW, IPPROTO_ICMP); }
void try_packet(hostile *self) { try_socket(self, "packet", AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)); }
void try_netlink(hostile *self) { try_socket(self, "netlink", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE); }

/* An abstract Unix socket the tests listen on, outside the keyboard: kbhost-hostile-test-PORT,
   with the port "port N" names (so that two test runs on one machine never share it). */
void try_abstract(hostile *self) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) { report_errno(self, "abstract", errno); return; }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    char name[64];
    int n = snprintf(name, sizeof name, "kbhost-hostile-test-%d", port_from_document(self));
    memcpy(a.sun_path + 1, name, (size_t)n);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    if (connect(fd, (struct sockaddr *)&a, len) < 0) { int e = errno; close(fd); report_errno(self, "abstract", e); return; }
    close(fd);
    report(self, "abstract", 1, "connected to @kbhost-hostile-test");
}

/* A pathname Unix socket: the daemon's control socket ($KBHOST_HOME/run/control
   in the tests), asked to grant this keyboard open access; and a listener. */
static void try_unix_socket(hostile *self, const char *what, const char *name, const char *message) {
    char path[1200];
    home_file(self, path, sizeof path, name);
    struct stat st;
    if (stat(path, &st) < 0) { report_errno(self, what, errno); return; }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, what, errno); return; }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    char real[1200];
    snprintf(a.sun_path, sizeof a.sun_path, "%s", realpath(path, real) ? real : path);  /* sun_path is short */
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { int e = errno; close(fd); report_errno(self, what, e); return; }
    ssize_t n = send(fd, message, strlen(message), MSG_NOSIGNAL);
    close(fd);
    report_ok(self, what, "connected and sent %ld bytes", (long)n);
}
void try_daemon(hostile *self) {
    char request[1400], home[1200];
    home_file(self, home, sizeof home, "");
    snprintf(request, sizeof request, "{\"argv\":[\"access\",\"dev.kbhost.Hostile\",\"on\"],\"home\":\"%s\"}\n", home);
    try_unix_socket(self, "daemon", "run/control", request);
}
/* A TCP server of its own on 127.0.0.1 (with open access, a way to hold buffers and to serve). */
void try_listen(hostile *self) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, "listen", errno); return; }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4) < 0) { int e = errno; close(fd); report_errno(self, "listen", e); return; }
    close(fd);
    report(self, "listen", 1, "listened on 127.0.0.1");
}
void try_unix(hostile *self) { try_unix_socket(self, "unix", "listener.sock", "hostile"); }
void try_socketpair(hostile *self) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0) { report_errno(self, "socketpair", errno); return; }
    close(fds[0]); close(fds[1]);
    report(self, "socketpair", 1, "made a socket pair");
}

/* The host's network, asked through the channel it handed over (a socket of the host's namespace). */
void try_ifconf(hostile *self) {
    char buffer[1024];
    struct ifconf conf = {.ifc_len = sizeof buffer, .ifc_buf = buffer};
    if (ioctl(3, SIOCGIFCONF, &conf) < 0) { report_errno(self, "ifconf", errno); return; }
    report_ok(self, "ifconf", "listed %ld bytes of the host's interfaces", (long)conf.ifc_len);
}

/* The sockets of its network namespace (with open access: the host's). */
void try_procnet(hostile *self) {
    int fd = open("/proc/self/net/unix", O_RDONLY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "procnet", errno); return; }
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    report_ok(self, "procnet", "read %ld bytes of /proc/self/net/unix", (long)n);
}

/* Send queues: with open access, "sockets N" connections (40 unless told, at most 200) to
   the port "port N" names, each written without blocking until the kernel takes no more.
   A server that never reads leaves it all queued in the keyboard's sockets: the kernel
   grows a TCP socket's send buffer on its own, to 4 MiB here. Held for a second, so that
   a kill comes during this key. How each socket is left once full is `leave`'s: open
   (sockq), closed with its data unsent (orphans: the socket then belongs to no process), or
   closed while a thread of its own still reads it (hidden: no descriptor names it). */
static void fill_sockets(hostile *self, const char *what, void (*leave)(int fd)) {
    int port = port_from_document(self);
    int wanted = number_in_document(self, "sockets", 40);
    if (wanted > 200) wanted = 200;
    static char chunk[65536];
    long queued = 0;
    int made = 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = host_address(self)};
    for (; made < wanted; made++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) { report_errno(self, what, errno); return; }
        if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { report_errno(self, what, errno); return; }
        fcntl(fd, F_SETFL, O_NONBLOCK);
        for (ssize_t n; (n = send(fd, chunk, sizeof chunk, MSG_NOSIGNAL)) > 0;) queued += n;
        if (leave) leave(fd);
    }
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    char detail[128];
    snprintf(detail, sizeof detail, "queued %ld bytes in %d sockets", queued, made);
    report(self, what, 1, detail);
}

void try_sockq(hostile *self) { fill_sockets(self, "sockq", NULL); }

/* The same queues filled at once: every connection made first, then all filled in one pass, at
   the speed of memory (how fast a count must come to see them before they are full). */
void try_fast_sockets(hostile *self) {
    int port = port_from_document(self);
    int wanted = number_in_document(self, "sockets", 40);
    if (wanted > 200) wanted = 200;
    static char chunk[65536];
    int fds[200];
    long queued = 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = host_address(self)};
    for (int i = 0; i < wanted; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fds[i] < 0) { report_errno(self, "fast-sockets", errno); return; }
        int flags = fcntl(fds[i], F_GETFL);
        fcntl(fds[i], F_SETFL, flags & ~O_NONBLOCK);
        if (connect(fds[i], (struct sockaddr *)&a, sizeof a) < 0) { report_errno(self, "fast-sockets", errno); return; }
        fcntl(fds[i], F_SETFL, flags);
    }
    struct timespec settle = {0, 100000000};  /* the connections are up before the fill */
    nanosleep(&settle, NULL);
    for (int i = 0; i < wanted; i++)
        for (ssize_t n; (n = send(fds[i], chunk, sizeof chunk, MSG_NOSIGNAL)) > 0;) queued += n;
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    char detail[128];
    snprintf(detail, sizeof detail, "queued %ld bytes in %d sockets", queued, wanted);
    report(self, "fast-sockets", 1, detail);
}

static void close_unsent(int fd) { close(fd); }
void try_orphans(hostile *self) { fill_sockets(self, "orphans", close_unsent); }

static volatile int reading;
static void *read_forever(void *arg) {
    char byte;
    int fd = (int)(intptr_t)arg;
    fcntl(fd, F_SETFL, 0);
    reading = 1;
    for (;;) if (recv(fd, &byte, 1, 0) <= 0) pause();
    return NULL;
}
static void close_while_read(int fd) {
    pthread_t t;
    reading = 0;
    if (pthread_create(&t, NULL, read_forever, (void *)(intptr_t)fd) != 0) return;
    while (!reading) sched_yield();
    struct timespec settle = {0, 200000};  /* the thread is in recv before the descriptor goes */
    nanosleep(&settle, NULL);
    close(fd);
}
void try_hidden_sockets(hostile *self) { fill_sockets(self, "hidden-sockets", close_while_read); }

/* Mapped: a TCP socket may be mapped (zero-copy receive); the mapping keeps it open, queues and
   all, once its descriptor is closed. */
static void map_and_close(int fd) {
    (void)mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
}
void try_mapped_sockets(hostile *self) { fill_sockets(self, "mapped-sockets", map_and_close); }

/* Reset: the server's greeting left unread, the socket kept full for a while (so that a relay
   passes what it holds on toward the server), then closed: with unread data, a reset. */
static void reset_when_full(int fd) {
    struct pollfd in = { .fd = fd, .events = POLLIN };
    (void)poll(&in, 1, 200);  /* the greeting */
    static char chunk[65536];
    for (int round = 0; round < 8; round++) {
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
        while (send(fd, chunk, sizeof chunk, MSG_NOSIGNAL | MSG_DONTWAIT) > 0) {}
    }
    close(fd);
}
void try_reset_orphans(hostile *self) { fill_sockets(self, "reset-orphans", reset_when_full); }

/* UDP datagrams being built: "sockets N" UDP sockets (40 unless told, at most 240), each sent
   64 pieces of 1,000 bytes with MSG_MORE toward the host's port: the kernel keeps them in the
   socket, unsent, until a send without MSG_MORE, charged to its wmem_alloc. Held a second. */
void try_udp_cork(hostile *self) {
    int port = port_from_document(self);
    int wanted = number_in_document(self, "sockets", 40);
    if (wanted > 240) wanted = 240;
    static char piece[1000];
    long corked = 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = host_address(self)};
    for (int i = 0; i < wanted; i++) {
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) { report_errno(self, "udp-cork", errno); return; }
        for (int j = 0; j < 64; j++) {
            ssize_t n = sendto(fd, piece, sizeof piece, MSG_MORE, (struct sockaddr *)&a, sizeof a);
            if (n < 0) break;
            corked += n;
        }
    }
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    report_ok(self, "udp-cork", "corked %ld bytes", corked);
}

/* A name resolved ("name NAME" in the document): with open access through the relay, its
   /etc/resolv.conf names the relay's DNS forwarder. */
void try_resolve(hostile *self) {
    const char *before = self->host->document_context_before_input(self->host->ctx);
    const char *found = before ? strstr(before, "name ") : NULL;
    char name[256] = "localhost";
    if (found) sscanf(found + 5, "%255s", name);
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *result = NULL;
    int rc = getaddrinfo(name, NULL, &hints, &result);
    if (rc != 0) {
        char detail[300];
        snprintf(detail, sizeof detail, "%s: %s", name, gai_strerror(rc));
        report(self, "resolve", 0, detail);
        return;
    }
    char address[64] = "";
    inet_ntop(AF_INET, &((struct sockaddr_in *)result->ai_addr)->sin_addr, address, sizeof address);
    freeaddrinfo(result);
    char detail[400];
    snprintf(detail, sizeof detail, "%s is %s", name, address);
    report(self, "resolve", 1, detail);
}

/* Datagrams to on-link addresses nobody answers: 10.0.2.10-109 (through the relay, slirp answers only
   for 10.0.2.2 and .3) and fe80::1-100 on tap0 (the relay carries no IPv6; a new link's address is usable about 2 s after it
   came up: a test taps this twice), 60,000 bytes each from a
   socket closed at once. Where the kernel must resolve those neighbours it keeps the datagrams queued
   for them, counted by nobody, in the machine's one neighbour table (twelfth red team, N1). Then
   holds 0.8 s, so that a test can read the namespace's neighbours meanwhile. */
void try_unresolved(hostile *self) {
    static char data[60000];
    int v4 = 0, v6 = 0, error4 = 0, error6 = 0;
    for (int i = 10; i < 110; i++) {
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0) { error4 = errno; continue; }
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(0x0a000200u | (unsigned)i)};
        if (sendto(fd, data, sizeof data, 0, (struct sockaddr *)&a, sizeof a) == (ssize_t)sizeof data) v4++; else error4 = errno;
        close(fd);
    }
    /* Waits up to 0.5 s for the link's IPv6 address (the kernel checks it is unique first). */
    for (int tries = 0; tries < 5; tries++) {
        int fd = socket(AF_INET6, SOCK_DGRAM, 0);
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(9), .sin6_scope_id = 2};
        a.sin6_addr.s6_addr[0] = 0xfe; a.sin6_addr.s6_addr[1] = 0x80; a.sin6_addr.s6_addr[15] = 200;
        int sent = fd >= 0 && sendto(fd, "", 0, 0, (struct sockaddr *)&a, sizeof a) == 0;
        if (fd >= 0) close(fd);
        if (sent) break;
        usleep(100000);
    }
    for (int i = 1; i <= 100; i++) {
        int fd = socket(AF_INET6, SOCK_DGRAM, 0);
        if (fd < 0) { error6 = errno; continue; }
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(9), .sin6_scope_id = 2};  /* lo is 1, tap0 2 */
        a.sin6_addr.s6_addr[0] = 0xfe; a.sin6_addr.s6_addr[1] = 0x80; a.sin6_addr.s6_addr[15] = (uint8_t)i;
        if (sendto(fd, data, sizeof data, 0, (struct sockaddr *)&a, sizeof a) == (ssize_t)sizeof data) v6++; else error6 = errno;
        close(fd);
    }
    usleep(800000);
    char detail[300];
    snprintf(detail, sizeof detail, "sent %d datagrams to 10.0.2.x (%s), %d to fe80::x (%s)", v4, error4 ? strerror(error4) : "no error",
             v6, error6 ? strerror(error6) : "no error");
    report(self, "unresolved", 1, detail);
}

/* UDP to the host through the relay's gateway as fast as it goes: 200 datagrams of 60,000 bytes,
   after a 1 s pause (a test stops the relay meanwhile), then a 0.6 s hold. What waits in tap0's
   queue for the relay to read belongs to no socket (the tun driver releases it from its sender):
   ~900 datagrams, 55 MiB, waited there counted by nobody (twelfth red team, N3). */
void try_ring(hostile *self) {
    static char data[60000];
    usleep(1000000);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    if (fd < 0) { report_errno(self, "ring", errno); return; }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port_from_document(self)), .sin_addr.s_addr = host_address(self)};
    int sent = 0, error = 0;
    for (int i = 0; i < 200; i++) {
        if (sendto(fd, data, sizeof data, 0, (struct sockaddr *)&a, sizeof a) == (ssize_t)sizeof data) sent++; else error = errno;
    }
    close(fd);
    usleep(600000);
    char detail[200];
    snprintf(detail, sizeof detail, "sent %d datagrams of 60000 bytes (%s)", sent, error ? strerror(error) : "no error");
    report(self, "ring", 1, detail);
}

/* Resets that leave little behind: per connection ("sockets N", 6 unless told, at most 40), 176 KiB
   sent in 4 KiB pieces 3 ms apart (the server's receive buffer takes the most; under 64 KiB waits in
   the relay's socket toward it), 20 ms, then a reset (connect to AF_UNSPEC) and a close. The relay's
   socket, closed with that unsent, was an orphan in the host's network (twelfth red team, N2: 1,329
   of them, 67.6 MiB under a 48 MiB budget). */
void try_reset_small(hostile *self) {
    int port = port_from_document(self);
    int wanted = number_in_document(self, "sockets", 6);
    if (wanted > 40) wanted = 40;
    static char piece[4096];
    long sent = 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = host_address(self)};
    for (int i = 0; i < wanted; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) { report_errno(self, "reset-small", errno); return; }
        if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { int e = errno; close(fd); report_errno(self, "reset-small", e); return; }
        for (int j = 0; j < 44; j++) {
            ssize_t n = send(fd, piece, sizeof piece, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) sent += n;
            usleep(3000);
        }
        usleep(20000);
        struct sockaddr none = {.sa_family = AF_UNSPEC};
        (void)connect(fd, &none, sizeof none);
        close(fd);
    }
    char detail[128];
    snprintf(detail, sizeof detail, "sent %ld bytes in %d connections", sent, wanted);
    report(self, "reset-small", 1, detail);
}

/* Orphans of tiny writes: "sockets N" connections (8 unless told, at most 40) to a server that never
   reads, one at a time, each filled until everything downstream is full (the relay's window closed,
   its own queue empty), then with 1-byte sends kept apart (MSG_EOR: one buffer each, hundreds of bytes of memory per byte
   sent) until the kernel takes no more, then closed. Counted from its namespace's table a closed one
   showed its bytes, not their memory: 37,848 bytes for 30.1 MiB (twelfth red team, N6). Held a second. */
void try_tiny_orphans(hostile *self) {
    int wanted = number_in_document(self, "sockets", 8);
    if (wanted > 40) wanted = 40;
    long tiny = 0;
    static char chunk[65536];
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port_from_document(self)), .sin_addr.s_addr = host_address(self)};
    for (int i = 0; i < wanted; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) { report_errno(self, "tiny-orphans", errno); return; }
        if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { int e = errno; close(fd); report_errno(self, "tiny-orphans", e); return; }
        fcntl(fd, F_SETFL, O_NONBLOCK);
        /* Downstream first: only as much as the peer's window takes, until it is closed and this
           socket's own queue is empty. */
        for (int step = 0; step < 4000; step++) {
            struct tcp_info info;
            socklen_t length = sizeof info;
            if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) < 0) break;
            if (info.tcpi_notsent_bytes || info.tcpi_unacked) { usleep(2000); continue; }
            if (info.tcpi_snd_wnd == 0) break;
            (void)!send(fd, chunk, info.tcpi_snd_wnd < sizeof chunk ? info.tcpi_snd_wnd : sizeof chunk, MSG_NOSIGNAL);
        }
        for (int quiet = 0; quiet < 20;) {
            if (send(fd, "x", 1, MSG_NOSIGNAL | MSG_EOR) == 1) { tiny++; quiet = 0; continue; }
            quiet++;
            usleep(5000);
        }
        close(fd);
    }
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    char detail[128];
    snprintf(detail, sizeof detail, "sent %ld bytes one at a time in %d sockets", tiny, wanted);
    report(self, "tiny-orphans", 1, detail);
}

/* Sockets out of the tables, kept by descriptor: "sockets N" UDP sockets (40 unless told, at most
   200) on its own 127.0.0.1, each sent more than its receive queue takes by another, then
   disconnected (connect to AF_UNSPEC), which takes it out of the UDP table with its queue. Counted
   only from a dump of the tables, the thirteenth red team held 45 MiB so under an 8 MiB budget.
   Held a second. */
void try_udp_unhashed(hostile *self) {
    int wanted = number_in_document(self, "sockets", 40);
    if (wanted > 200) wanted = 200;
    static char datagram[8192];
    long queued = 0;
    int sender = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof a;
    if (sender < 0 || connect(sender, (struct sockaddr *)&a, sizeof a) < 0 || getsockname(sender, (struct sockaddr *)&a, &length) < 0) {
        report_errno(self, "udp-unhashed", errno);
        return;
    }
    struct sockaddr_in from = a;  /* the sender's own address */
    for (int i = 0; i < wanted; i++) {
        int receiver = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in at = a;
        length = sizeof at;
        if (receiver < 0 || connect(receiver, (struct sockaddr *)&from, sizeof from) < 0
            || getsockname(receiver, (struct sockaddr *)&at, &length) < 0 || connect(sender, (struct sockaddr *)&at, sizeof at) < 0) {
            report_errno(self, "udp-unhashed", errno);
            return;
        }
        for (int j = 0; j < 40; j++) {  /* more than its receive queue takes; the rest is dropped */
            ssize_t n = send(sender, datagram, sizeof datagram, 0);
            if (n > 0) queued += n;
        }
        struct sockaddr none = {.sa_family = AF_UNSPEC};
        (void)connect(receiver, &none, sizeof none);
    }
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    char detail[128];
    snprintf(detail, sizeof detail, "queued %ld bytes in %d sockets out of the tables", queued, wanted);
    report(self, "udp-unhashed", 1, detail);
}
