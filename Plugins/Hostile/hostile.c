/* dev.kbhost.Hostile: a keyboard that tries to escape its sandbox. Each key
   makes one attempt and inserts what happened into the document, one line:
       tcp: denied: Operation not permitted (errno 1)
       own: allowed: wrote 6 bytes to …/Containers/Keyboards/dev.kbhost.Hostile/note.txt
   so that `kbhost type --keyboard dev.kbhost.Hostile tcp udp …` shows the
   outcome of each. tcp and udp send to 127.0.0.1 on the port given by
   "port N" before the insertion point; the attempts on another process
   (ptrace, signal, procmem, vmread, prlimit, renice, sched, affinity, ioprio,
   setpgid) aim at the process "victim N" names (the tests write
   "port 12345 victim 678 "); the daemon's socket, settings.json and
   listener.sock are found from the container's path (KBHOST_HOME is three
   folders up).
   Nothing here is subtle: these are the first things a malicious keyboard
   would try. Written in C so that each attempt is the bare system call. */
#define _GNU_SOURCE
#include <kbhost_keyboard.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

typedef struct hostile {
    const kbh_host_v1 *host;
} hostile;

#define GROUP "group.dev.kbhost.Hostile"

static void report(hostile *self, const char *what, int ok, const char *detail) {
    char line[1024];
    snprintf(line, sizeof line, "%s: %s: %s\n", what, ok ? "allowed" : "denied", detail);
    self->host->insert_text(self->host->ctx, line);
}

static void report_errno(hostile *self, const char *what, int error) {
    char detail[256];
    snprintf(detail, sizeof detail, "%s (errno %d)", strerror(error), error);
    report(self, what, 0, detail);
}

/* The number after the last "NAME " before the insertion point, or `otherwise`. */
static int number_in_document(hostile *self, const char *name, int otherwise) {
    const char *before = self->host->document_context_before_input(self->host->ctx);
    const char *found = NULL;
    size_t n = strlen(name);
    for (const char *p = before ? before : ""; (p = strstr(p, name)); p += n)
        if (p[n] == ' ') found = p + n + 1;
    return found && *found >= '0' && *found <= '9' ? atoi(found) : otherwise;
}

static int port_from_document(hostile *self) { return number_in_document(self, "port", 9); }
/* A real process outside the keyboard, of the same user (started by the tests). */
static pid_t victim(hostile *self) { return (pid_t)number_in_document(self, "victim", (int)getppid()); }

static const char *container(hostile *self) {
    const char *c = KBH_HOST_HAS(self->host, container_path) ? self->host->container_path(self->host->ctx) : NULL;
    return c ? c : "/nonexistent";
}

static void try_tcp(hostile *self) {
    int port = port_from_document(self);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { report_errno(self, "tcp", errno); return; }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { int e = errno; close(fd); report_errno(self, "tcp", e); return; }
    ssize_t n = send(fd, "hostile", 7, MSG_NOSIGNAL);
    int e = errno;
    close(fd);
    if (n < 0) { report_errno(self, "tcp", e); return; }
    char detail[128];
    snprintf(detail, sizeof detail, "sent %zd bytes to 127.0.0.1:%d", n, port);
    report(self, "tcp", 1, detail);
}

static void try_udp(hostile *self) {
    int port = port_from_document(self);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) { report_errno(self, "udp", errno); return; }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ssize_t n = sendto(fd, "hostile", 7, 0, (struct sockaddr *)&a, sizeof a);
    int e = errno;
    close(fd);
    if (n < 0) { report_errno(self, "udp", e); return; }
    char detail[128];
    snprintf(detail, sizeof detail, "sent %zd bytes to 127.0.0.1:%d", n, port);
    report(self, "udp", 1, detail);
}

static void try_socket(hostile *self, const char *what, int domain, int type, int protocol) {
    int fd = socket(domain, type, protocol);
    if (fd < 0) { report_errno(self, what, errno); return; }
    close(fd);
    report(self, what, 1, "opened a socket");
}

static void try_raw(hostile *self) { try_socket(self, "raw", AF_INET, SOCK_RAW, IPPROTO_ICMP); }
static void try_packet(hostile *self) { try_socket(self, "packet", AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)); }
static void try_netlink(hostile *self) { try_socket(self, "netlink", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE); }

static void try_io_uring(hostile *self) {
    unsigned char params[120];  /* struct io_uring_params */
    memset(params, 0, sizeof params);
    long fd = syscall(SYS_io_uring_setup, 4, params);
    if (fd < 0) { report_errno(self, "io_uring", errno); return; }
    close((int)fd);
    report(self, "io_uring", 1, "set up a ring");
}

static void try_read(hostile *self, const char *what, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, what, errno); return; }
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf);
    int e = errno;
    close(fd);
    if (n < 0) { report_errno(self, what, e); return; }
    char detail[1200];
    snprintf(detail, sizeof detail, "read %zd bytes of %s", n, path);
    report(self, what, 1, detail);
}

static void try_list(hostile *self, const char *what, const char *path) {
    DIR *d = opendir(path);
    if (!d) { report_errno(self, what, errno); return; }
    int n = 0;
    while (readdir(d)) n++;
    closedir(d);
    char detail[1200];
    snprintf(detail, sizeof detail, "listed %d entries of %s", n, path);
    report(self, what, 1, detail);
}

static void try_write(hostile *self, const char *what, const char *dir, const char *name) {
    if (!dir) { report(self, what, 0, "no such folder"); return; }
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { report_errno(self, what, errno); return; }
    ssize_t n = write(fd, "escape", 6);
    close(fd);
    char detail[1300];
    snprintf(detail, sizeof detail, "wrote %zd bytes to %s", n, path);
    report(self, what, 1, detail);
}

static void try_neighbor(hostile *self) {
    char path[1200];
    snprintf(path, sizeof path, "%s/../dev.kbhost.Calculator", container(self));
    try_list(self, "neighbor", path);
}

static void try_settings(hostile *self) {
    char path[1200];
    snprintf(path, sizeof path, "%s/../../../settings.json", container(self));
    try_read(self, "settings", path);
}

static void try_home(hostile *self) { try_list(self, "home", "/root"); }
static void try_passwd(hostile *self) { try_read(self, "passwd", "/etc/passwd"); }
static void try_own(hostile *self) { try_write(self, "own", container(self), "note.txt"); }

static const char *group_dir(hostile *self) {
    return KBH_HOST_HAS(self->host, group_container_path) ? self->host->group_container_path(self->host->ctx, GROUP) : NULL;
}

static void try_group_write(hostile *self) { try_write(self, "group-write", group_dir(self), "hostile.txt"); }
static void try_group_read(hostile *self) {
    const char *dir = group_dir(self);
    if (!dir) { report(self, "group-read", 0, "no such folder"); return; }
    try_list(self, "group-read", dir);
}

/* Through the host's service, as the SDK's GroupDefaults does. */
static void try_defaults(hostile *self) {
    const char *text = "escaped";
    kbh_value_v1 v = {.type = KBH_VALUE_STRING, .bytes = (const uint8_t *)text, .length = strlen(text)};
    int32_t rc = self->host->defaults_set(self->host->ctx, GROUP, "hostile", &v);
    if (rc != 0) {
        report(self, "defaults", 0, self->host->last_error(self->host->ctx));
        return;
    }
    report(self, "defaults", 1, "wrote hostile = escaped");
}

static void try_pasteboard(hostile *self) {
    const char *text = NULL;
    int32_t rc = self->host->pasteboard_get(self->host->ctx, &text);
    if (rc != 0) { report(self, "pasteboard", 0, self->host->last_error(self->host->ctx)); return; }
    char detail[512];
    snprintf(detail, sizeof detail, "read \"%.200s\"", text ? text : "");
    report(self, "pasteboard", 1, detail);
}

static void try_ptrace(hostile *self) {
    pid_t host = victim(self);
    if (ptrace(PTRACE_ATTACH, host, NULL, NULL) < 0) { report_errno(self, "ptrace", errno); return; }
    waitpid(host, NULL, __WALL);
    ptrace(PTRACE_DETACH, host, NULL, NULL);
    report(self, "ptrace", 1, "attached to the victim");
}

static void try_signal(hostile *self) {
    if (kill(victim(self), 0) < 0) { report_errno(self, "signal", errno); return; }
    report(self, "signal", 1, "may signal the victim");
}

static void try_procmem(hostile *self) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)victim(self));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "procmem", errno); return; }
    close(fd);
    report(self, "procmem", 1, "opened the victim's memory");
}

static void try_vmread(hostile *self) {
    char buf[8];
    struct iovec local = {buf, sizeof buf}, remote = {(void *)0x400000, sizeof buf};
    ssize_t n = process_vm_readv(victim(self), &local, 1, &remote, 1, 0);
    if (n < 0 && errno != EFAULT) { report_errno(self, "vmread", errno); return; }
    report(self, "vmread", 1, "reached the victim's memory");
}

static void try_exec(hostile *self) {
    char *const argv[] = {"sh", "-c", "exit 0", NULL};
    execve("/bin/sh", argv, environ);
    report_errno(self, "exec", errno);  /* only reached when execve failed */
}

static void try_fork(hostile *self) {
    pid_t pid = fork();
    if (pid < 0) { report_errno(self, "fork", errno); return; }
    if (pid == 0) _exit(0);
    waitpid(pid, NULL, 0);
    report(self, "fork", 1, "started a child process");
}

/* An abstract Unix socket the tests listen on, outside the keyboard. */
static void try_abstract(hostile *self) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) { report_errno(self, "abstract", errno); return; }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    const char name[] = "kbhost-hostile-test";
    memcpy(a.sun_path + 1, name, sizeof name - 1);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + sizeof name - 1);
    if (connect(fd, (struct sockaddr *)&a, len) < 0) { int e = errno; close(fd); report_errno(self, "abstract", e); return; }
    close(fd);
    report(self, "abstract", 1, "connected to @kbhost-hostile-test");
}

/* KBHOST_HOME, three folders above the container, and a file in it. */
static void home_file(hostile *self, char *path, size_t size, const char *name) {
    snprintf(path, size, "%s/../../../%s", container(self), name);
}

static void report_ok(hostile *self, const char *what, const char *format, long value) {
    char detail[256];
    snprintf(detail, sizeof detail, format, value);
    report(self, what, 1, detail);
}

/* Calls that name another process: each would hurt it (or the host) for real. */
static void try_prlimit(hostile *self) {
    struct rlimit none = {0, 0};  /* RLIMIT_FSIZE 0: SIGXFSZ at its next write */
    if (prlimit(victim(self), RLIMIT_FSIZE, &none, NULL) < 0) { report_errno(self, "prlimit", errno); return; }
    report_ok(self, "prlimit", "set RLIMIT_FSIZE of %ld to 0", victim(self));
}
static void try_renice(hostile *self) {
    if (setpriority(PRIO_PROCESS, (id_t)victim(self), 19) < 0) { report_errno(self, "renice", errno); return; }
    report_ok(self, "renice", "reniced %ld to 19", victim(self));
}
static void try_sched(hostile *self) {
    struct sched_param param = {0};
    if (sched_setscheduler(victim(self), SCHED_IDLE, &param) < 0) { report_errno(self, "sched", errno); return; }
    report_ok(self, "sched", "put %ld on SCHED_IDLE", victim(self));
}
static void try_affinity(hostile *self) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    if (sched_setaffinity(victim(self), sizeof set, &set) < 0) { report_errno(self, "affinity", errno); return; }
    report_ok(self, "affinity", "pinned %ld to CPU 0", victim(self));
}
static void try_ioprio(hostile *self) {
    long prio = 3L << 13;  /* IOPRIO_CLASS_IDLE */
    if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, victim(self), prio) < 0) { report_errno(self, "ioprio", errno); return; }
    report_ok(self, "ioprio", "put %ld on idle I/O", victim(self));
}
static void try_setpgid(hostile *self) {
    if (setpgid(0, victim(self)) < 0) { report_errno(self, "setpgid", errno); return; }
    report_ok(self, "setpgid", "joined process group %ld", victim(self));
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
static void try_daemon(hostile *self) {
    char request[1400], home[1200];
    home_file(self, home, sizeof home, "");
    snprintf(request, sizeof request, "{\"argv\":[\"access\",\"dev.kbhost.Hostile\",\"on\"],\"home\":\"%s\"}\n", home);
    try_unix_socket(self, "daemon", "run/control", request);
}
/* A TCP server of its own on 127.0.0.1 (with open access, a way to hold buffers and to serve). */
static void try_listen(hostile *self) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { report_errno(self, "listen", errno); return; }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4) < 0) { int e = errno; close(fd); report_errno(self, "listen", e); return; }
    close(fd);
    report(self, "listen", 1, "listened on 127.0.0.1");
}
static void try_unix(hostile *self) { try_unix_socket(self, "unix", "listener.sock", "hostile"); }
static void try_socketpair(hostile *self) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0) { report_errno(self, "socketpair", errno); return; }
    close(fds[0]); close(fds[1]);
    report(self, "socketpair", 1, "made a socket pair");
}

/* SysV IPC the tests set up with key 0x6b62 ("kb"): a segment and a queue holding "secret". */
static void try_shm(hostile *self) {
    int id = shmget(0x6b62, 0, 0);
    if (id < 0) { report_errno(self, "shm", errno); return; }
    char *p = shmat(id, NULL, SHM_RDONLY);
    if (p == (void *)-1) { report_errno(self, "shm", errno); return; }
    char detail[64];
    snprintf(detail, sizeof detail, "read \"%.6s\"", p);
    shmdt(p);
    report(self, "shm", 1, detail);
}
static void try_msgq(hostile *self) {
    int id = msgget(0x6b62, 0);
    if (id < 0) { report_errno(self, "msgq", errno); return; }
    struct { long type; char text[16]; } m = {0};
    if (msgrcv(id, &m, sizeof m.text, 0, IPC_NOWAIT | MSG_COPY) < 0 && msgrcv(id, &m, sizeof m.text, 0, IPC_NOWAIT) < 0) {
        report_errno(self, "msgq", errno);
        return;
    }
    char detail[64];
    snprintf(detail, sizeof detail, "read \"%.6s\"", m.text);
    report(self, "msgq", 1, detail);
}

/* Metadata outside its container. */
static void try_chmod(hostile *self) {
    char path[1200];
    home_file(self, path, sizeof path, "settings.json");
    if (chmod(path, 0) < 0) { report_errno(self, "chmod", errno); return; }
    report(self, "chmod", 1, "made settings.json unreadable");
}
static void try_chmod_group(hostile *self) {
    const char *dir = group_dir(self);
    if (!dir || chmod(dir, 0777) < 0) { report_errno(self, "chmod-group", dir ? errno : ENOENT); return; }
    report(self, "chmod-group", 1, "made its group folder 0777");
}
static void try_utime(hostile *self) {
    const char *dir = group_dir(self);
    if (!dir || utimensat(AT_FDCWD, dir, NULL, 0) < 0) { report_errno(self, "utime", dir ? errno : ENOENT); return; }
    report(self, "utime", 1, "touched its group folder");
}
static void try_chown(hostile *self) {
    if (fchownat(AT_FDCWD, container(self), getuid(), getgid(), 0) < 0) { report_errno(self, "chown", errno); return; }
    report(self, "chown", 1, "chowned its container");
}
static void try_inotify(hostile *self) {
    int fd = inotify_init1(IN_CLOEXEC);
    if (fd < 0) { report_errno(self, "inotify", errno); return; }
    char path[1200];
    snprintf(path, sizeof path, "%s/../dev.kbhost.Calculator", container(self));
    int w = inotify_add_watch(fd, path, IN_CREATE);
    int e = errno;
    close(fd);
    if (w < 0) { report_errno(self, "inotify", e); return; }
    report(self, "inotify", 1, "watches a neighbour's container");
}

/* Memory the budget would not see. */
static void try_memfd(hostile *self) {
    int fd = (int)syscall(SYS_memfd_create, "hostile", 0);
    if (fd < 0) { report_errno(self, "memfd", errno); return; }
    close(fd);
    report(self, "memfd", 1, "made a memfd");
}
static void try_pipe(hostile *self) {
    int fds[2];
    if (pipe(fds) < 0) { report_errno(self, "pipe", errno); return; }
    close(fds[0]); close(fds[1]);
    report(self, "pipe", 1, "made a pipe");
}
static void try_hugepages(hostile *self) {
    if (prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0) < 0) { report_errno(self, "hugepages", errno); return; }
    report(self, "hugepages", 1, "turned transparent huge pages back on");
}

/* What it was given: its environment's names, its working directory, its descriptors, the processes it sees. */
static void try_env(hostile *self) {
    char names[1024] = "";
    for (char **e = environ; *e; e++) {
        size_t used = strlen(names);
        const char *eq = strchr(*e, '=');
        snprintf(names + used, sizeof names - used, "%s%.*s", used ? " " : "", (int)(eq ? eq - *e : (long)strlen(*e)), *e);
    }
    report(self, "env", 1, names);
}
static void try_cwd(hostile *self) {
    char cwd[1024];
    if (!getcwd(cwd, sizeof cwd)) { report_errno(self, "cwd", errno); return; }
    report(self, "cwd", 1, cwd);
}
static void try_fds(hostile *self) {
    char list[512] = "";
    for (int fd = 0; fd < 256; fd++) {
        if (fcntl(fd, F_GETFD) < 0) continue;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%d", used ? " " : "", fd);
    }
    report(self, "fds", 1, list);
}
static void try_processes(hostile *self) {
    DIR *d = opendir("/proc");
    if (!d) { report_errno(self, "processes", errno); return; }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) if (e->d_name[0] >= '0' && e->d_name[0] <= '9') n++;
    closedir(d);
    report_ok(self, "processes", "sees %ld", n);
}

/* An x32 system call (the x86-64 number with bit 30 set) reaches the kernel
   by another table than the one a filter for x86-64 checks: the filter must
   end the process. Only reached on x86-64. */
static void try_x32(hostile *self) {
#if defined(__x86_64__)
    long r = syscall(0x40000000L | SYS_getpid);
    if (r < 0) { report_errno(self, "x32", errno); return; }
    report(self, "x32", 1, "an x32 system call went through");
#else
    report(self, "x32", 0, "not an x86-64 machine");
#endif
}

/* Terminal sequences as text: clear the screen, write the clipboard (OSC 52),
   a C1 CSI. kbhost must print them escaped, in the document and in the tail
   of this keyboard's output that a failure quotes. */
static void try_escape(hostile *self) {
    static const char seq[] = "\x1b[2J\x1b]52;c;aGk=\x07\xc2\x9b";
    fputs(seq, stderr);
    fputs("\n", stderr);
    fflush(stderr);
    self->host->insert_text(self->host->ctx, seq);
}

/* Key names and attempts, in layout order. */
static const struct attempt {
    const char *label;
    const char *selector;
    void (*run)(hostile *);
} attempts[] = {
    {"tcp", "tcp", try_tcp}, {"udp", "udp", try_udp}, {"raw", "raw", try_raw},
    {"packet", "packet", try_packet}, {"netlink", "netlink", try_netlink}, {"io_uring", "ioUring", try_io_uring},
    {"neighbor", "neighbor", try_neighbor}, {"home", "home", try_home}, {"passwd", "passwd", try_passwd},
    {"settings", "settings", try_settings}, {"own", "own", try_own}, {"group-read", "groupRead", try_group_read},
    {"group-write", "groupWrite", try_group_write}, {"defaults", "defaults", try_defaults},
    {"pasteboard", "pasteboard", try_pasteboard}, {"ptrace", "ptrace", try_ptrace}, {"signal", "signal", try_signal},
    {"procmem", "procmem", try_procmem}, {"vmread", "vmread", try_vmread}, {"abstract", "abstract", try_abstract},
    {"exec", "exec", try_exec}, {"fork", "fork", try_fork}, {"x32", "x32", try_x32},
    {"prlimit", "prlimit", try_prlimit}, {"renice", "renice", try_renice}, {"sched", "sched", try_sched},
    {"affinity", "affinity", try_affinity}, {"ioprio", "ioprio", try_ioprio}, {"setpgid", "setpgid", try_setpgid},
    {"daemon", "daemon", try_daemon}, {"unix", "unix", try_unix}, {"socketpair", "socketpair", try_socketpair},
    {"shm", "shm", try_shm}, {"msgq", "msgq", try_msgq}, {"chmod", "chmod", try_chmod},
    {"chmod-group", "chmodGroup", try_chmod_group}, {"utime", "utime", try_utime}, {"chown", "chown", try_chown},
    {"inotify", "inotify", try_inotify}, {"memfd", "memfd", try_memfd}, {"pipe", "pipe", try_pipe},
    {"hugepages", "hugepages", try_hugepages}, {"env", "env", try_env}, {"cwd", "cwd", try_cwd},
    {"fds", "fds", try_fds}, {"processes", "processes", try_processes}, {"listen", "listen", try_listen},
    {"escape", "escape", try_escape},
};
#define ATTEMPTS (sizeof attempts / sizeof attempts[0])

/* One selector for every attempt: the selector's info says which. v@: */
static void attempt(hostile *self, const kbh_selector_v1 *cmd) {
    ((const struct attempt *)cmd->info)->run(self);
}

static void next_keyboard(hostile *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->advance_to_next_input_mode(self->host->ctx);
}

static void view_did_load(hostile *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    kbh_key_spec_v1 keys[ATTEMPTS + 1];
    for (size_t i = 0; i < ATTEMPTS; i++)
        keys[i] = (kbh_key_spec_v1){.identifier = attempts[i].label, .label = attempts[i].label,
                                    .role = KBH_ROLE_FUNCTION, .action = attempts[i].selector};
    keys[ATTEMPTS] = (kbh_key_spec_v1){.label = "🌐", .role = KBH_ROLE_GLOBE, .action = "nextKeyboard"};
    kbh_row_spec_v1 rows[] = {{keys, 6}, {keys + 6, 9}, {keys + 15, 8}, {keys + 23, 9}, {keys + 32, 8},
                              {keys + 40, (uint32_t)(ATTEMPTS - 40 + 1)}};
    kbh_layout_v1 layout = {.display = "Each key tries one escape and types what happened.", .rows = rows, .row_count = 6};
    self->host->set_layout(self->host->ctx, &layout);
}

static void *create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    if (!KBH_HOST_HAS(host, last_error)) return NULL;  /* needs the services table's later fields */
    hostile *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static kbh_selector_v1 selectors[ATTEMPTS + 2];

static kbh_class_v1 hostile_class = {
    .name = "HostileViewController",
    .create = create,
    .selectors = selectors,
    .selector_count = ATTEMPTS + 2,
};

static const kbh_class_v1 *const classes[] = {&hostile_class};

static const kbh_plugin_v1 plugin = {
    .abi_version = KBH_ABI_VERSION,
    .struct_size = sizeof(kbh_plugin_v1),
    .classes = classes,
    .class_count = 1,
};

const kbh_plugin_v1 *kbhost_keyboard_plugin_v1(void) {
    selectors[0] = (kbh_selector_v1){"viewDidLoad", "v@:", (void *)view_did_load, NULL};
    selectors[1] = (kbh_selector_v1){"nextKeyboard", "v@:", (void *)next_keyboard, NULL};
    for (size_t i = 0; i < ATTEMPTS; i++)
        selectors[i + 2] = (kbh_selector_v1){attempts[i].selector, "v@:", (void *)attempt, (void *)&attempts[i]};
    return &plugin;
}
