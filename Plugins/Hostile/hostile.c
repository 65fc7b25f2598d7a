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

#include "attempts.h"

void report(hostile *self, const char *what, int ok, const char *detail) {
    char line[1024];
    snprintf(line, sizeof line, "%s: %s: %s\n", what, ok ? "allowed" : "denied", detail);
    self->host->insert_text(self->host->ctx, line);
}

void report_errno(hostile *self, const char *what, int error) {
    char detail[256];
    snprintf(detail, sizeof detail, "%s (errno %d)", strerror(error), error);
    report(self, what, 0, detail);
}

/* The number after the last "NAME " before the insertion point, or `otherwise`. */
int number_in_document(hostile *self, const char *name, int otherwise) {
    const char *before = self->host->document_context_before_input(self->host->ctx);
    const char *found = NULL;
    size_t n = strlen(name);
    for (const char *p = before ? before : ""; (p = strstr(p, name)); p += n)
        if (p[n] == ' ') found = p + n + 1;
    return found && *found >= '0' && *found <= '9' ? atoi(found) : otherwise;
}

int port_from_document(hostile *self) { return number_in_document(self, "port", 9); }
/* The host's 127.0.0.1: itself, or, in a network namespace of its own ("gateway " in the
   document: open access through kbhost's relay), the relay's gateway 10.0.2.2. */
uint32_t host_address(hostile *self) {
    const char *before = self->host->document_context_before_input(self->host->ctx);
    return htonl(before && strstr(before, "gateway ") ? 0x0a000202 : INADDR_LOOPBACK);
}
const char *host_address_text(hostile *self) { return host_address(self) == htonl(INADDR_LOOPBACK) ? "127.0.0.1" : "10.0.2.2"; }
/* A real process outside the keyboard, of the same user (started by the tests). */
pid_t victim(hostile *self) { return (pid_t)number_in_document(self, "victim", (int)getppid()); }

const char *container(hostile *self) {
    const char *c = KBH_HOST_HAS(self->host, container_path) ? self->host->container_path(self->host->ctx) : NULL;
    return c ? c : "/nonexistent";
}

const char *group_dir(hostile *self) {
    return KBH_HOST_HAS(self->host, group_container_path) ? self->host->group_container_path(self->host->ctx, GROUP) : NULL;
}

/* KBHOST_HOME, three folders above the container, and a file in it. */
void home_file(hostile *self, char *path, size_t size, const char *name) {
    snprintf(path, size, "%s/../../../%s", container(self), name);
}

void report_ok(hostile *self, const char *what, const char *format, long value) {
    char detail[256];
    snprintf(detail, sizeof detail, format, value);
    report(self, what, 1, detail);
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
    {"escape", "escape", try_escape}, {"fifo", "fifo", try_fifo}, {"aio", "aio", try_aio},
    {"setown", "setown", try_setown}, {"tmp", "tmp", try_tmp}, {"ifconf", "ifconf", try_ifconf},
    {"tmp-peek", "tmpPeek", try_tmp_peek}, {"threads", "threads", try_threads}, {"flock", "flock", try_flock},
    {"pagetables", "pagetables", try_pagetables},
    {"procnet", "procnet", try_procnet},
    {"lease", "lease", try_lease}, {"dnotify", "dnotify", try_dnotify}, {"personality", "personality", try_personality},
    {"sync", "sync", try_sync}, {"capget", "capget", try_capget}, {"getsid", "getsid", try_getsid},
    {"sysinfo", "sysinfo", try_sysinfo}, {"syslog", "syslog", try_syslog}, {"perf", "perf", try_perf},
    {"userfaultfd", "userfaultfd", try_userfaultfd}, {"int80", "int80", try_int80},
    {"named-group", "namedGroup", try_named_group},
    {"rcvbuf", "rcvbuf", try_rcvbuf}, {"locks", "locks", try_locks}, {"ofd-lock", "ofdLock", try_ofd_lock},
    {"sockq", "sockq", try_sockq}, {"fast-sockets", "fastSockets", try_fast_sockets}, {"orphans", "orphans", try_orphans},
    {"hidden-sockets", "hiddenSockets", try_hidden_sockets},
    {"udp-cork", "udpCork", try_udp_cork}, {"mapped-sockets", "mappedSockets", try_mapped_sockets},
    {"reset-orphans", "resetOrphans", try_reset_orphans}, {"unresolved", "unresolved", try_unresolved},
    {"ring", "ring", try_ring}, {"reset-small", "resetSmall", try_reset_small},
    {"tiny-orphans", "tinyOrphans", try_tiny_orphans}, {"peer-pidfd", "peerPidfd", try_peer_pidfd},
    {"udp-unhashed", "udpUnhashed", try_udp_unhashed},
    {"mapped-flocks", "mappedFlocks", try_mapped_flocks}, {"map-locked", "mapLocked", try_map_locked},
    {"cmdline", "cmdline", try_cmdline}, {"rcvlowat", "rcvlowat", try_rcvlowat},
    {"resolve", "resolve", try_resolve}, {"fill", "fill", try_fill}, {"fill-badname", "fillBadname", try_fill_badname},
    {"unlinked", "unlinked", try_unlinked}, {"mapped", "mapped", try_mapped},
    {"read-file", "readFile", try_read_file},
    {"fdtable", "fdtable", try_fdtable}, {"mptcp", "mptcp", try_mptcp}, {"udplite", "udplite", try_udplite},
    {"leader", "leader", try_leader}, {"shared-anon", "sharedAnon", try_shared_anon}, {"devzero", "devzero", try_devzero},
    {"rt", "rt", try_rt}, {"hidden-dir", "hiddenDir", try_hidden_dir}, {"umask", "umask", try_umask},
    {"md5sig", "md5sig", try_md5sig}, {"mcast", "mcast", try_mcast}, {"ri", "ri", try_ri},
    {"proc-task", "procTask", try_proc_task}, {"pass-fd", "passFd", try_pass_fd}, {"wide-level", "wideLevel", try_wide_level},
    {"linger", "linger", try_linger}, {"vmas", "vmas", try_vmas}, {"user-timeout", "userTimeout", try_user_timeout},
    {"core", "core", try_core}, {"whiteout", "whiteout", try_whiteout},
    {"buried", "buried", try_buried}, {"moving", "moving", try_moving},
    {"tracked-leak", "trackedLeak", try_tracked_leak},
    {"unstoppable", "unstoppable", try_unstoppable},
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
