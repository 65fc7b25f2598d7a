/* What the hostile keyboard's files share: its instance, the report it types,
   the numbers the tests write into the document, and every attempt (one file
   per kind: network.c, files.c, processes.c, resources.c, kernel.c, unnamed.c, hiding.c; hostile.c holds the
   helpers, the layout's table and the plugin's entry). Nothing here is
   exported from the library. */
#ifndef HOSTILE_ATTEMPTS_H
#define HOSTILE_ATTEMPTS_H

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
#include <time.h>
#include <unistd.h>


typedef struct hostile {
    const kbh_host_v1 *host;
} hostile;

#define GROUP "group.dev.kbhost.Hostile"

#define HIDDEN __attribute__((visibility("hidden")))

/* Helpers (hostile.c). */
HIDDEN void report(hostile *self, const char *what, int ok, const char *detail);
HIDDEN void report_errno(hostile *self, const char *what, int error);
HIDDEN int number_in_document(hostile *self, const char *name, int otherwise);
HIDDEN int port_from_document(hostile *self);
HIDDEN uint32_t host_address(hostile *self);
HIDDEN const char *host_address_text(hostile *self);
HIDDEN pid_t victim(hostile *self);
HIDDEN const char *container(hostile *self);
HIDDEN const char *group_dir(hostile *self);
HIDDEN void home_file(hostile *self, char *path, size_t size, const char *name);
HIDDEN void report_ok(hostile *self, const char *what, const char *format, long value);
/* unnamed.c: a second's hold (so that a kill comes during the key), and N MiB written (0 or an errno). */
HIDDEN void hold_a_second(void);
HIDDEN int write_mib(int fd, int mib);

/* network.c */
HIDDEN void try_tcp(hostile *self);
HIDDEN void try_udp(hostile *self);
HIDDEN void try_raw(hostile *self);
HIDDEN void try_packet(hostile *self);
HIDDEN void try_netlink(hostile *self);
HIDDEN void try_abstract(hostile *self);
HIDDEN void try_daemon(hostile *self);
HIDDEN void try_listen(hostile *self);
HIDDEN void try_unix(hostile *self);
HIDDEN void try_socketpair(hostile *self);

/* files.c */
HIDDEN void try_neighbor(hostile *self);
HIDDEN void try_settings(hostile *self);
HIDDEN void try_home(hostile *self);
HIDDEN void try_passwd(hostile *self);
HIDDEN void try_own(hostile *self);
HIDDEN void try_group_write(hostile *self);
HIDDEN void try_group_read(hostile *self);
HIDDEN void try_defaults(hostile *self);
HIDDEN void try_pasteboard(hostile *self);
HIDDEN void try_chmod(hostile *self);
HIDDEN void try_chmod_group(hostile *self);
HIDDEN void try_utime(hostile *self);
HIDDEN void try_chown(hostile *self);
HIDDEN void try_inotify(hostile *self);

/* processes.c */
HIDDEN void try_ptrace(hostile *self);
HIDDEN void try_signal(hostile *self);
HIDDEN void try_procmem(hostile *self);
HIDDEN void try_vmread(hostile *self);
HIDDEN void try_exec(hostile *self);
HIDDEN void try_fork(hostile *self);
HIDDEN void try_prlimit(hostile *self);
HIDDEN void try_renice(hostile *self);
HIDDEN void try_sched(hostile *self);
HIDDEN void try_affinity(hostile *self);
HIDDEN void try_ioprio(hostile *self);
HIDDEN void try_setpgid(hostile *self);
HIDDEN void try_shm(hostile *self);
HIDDEN void try_msgq(hostile *self);

/* resources.c */
HIDDEN void try_io_uring(hostile *self);
HIDDEN void try_memfd(hostile *self);
HIDDEN void try_pipe(hostile *self);
HIDDEN void try_hugepages(hostile *self);
HIDDEN void try_env(hostile *self);
HIDDEN void try_cwd(hostile *self);
HIDDEN void try_fds(hostile *self);
HIDDEN void try_processes(hostile *self);
HIDDEN void try_x32(hostile *self);
HIDDEN void try_escape(hostile *self);
HIDDEN void try_fifo(hostile *self);
HIDDEN void try_aio(hostile *self);
HIDDEN void try_setown(hostile *self);
HIDDEN void try_tmp(hostile *self);
HIDDEN void try_tmp_peek(hostile *self);
HIDDEN void try_flock(hostile *self);
HIDDEN void try_pagetables(hostile *self);
HIDDEN void try_threads(hostile *self);
HIDDEN void try_ifconf(hostile *self);
HIDDEN void try_procnet(hostile *self);

/* kernel.c */
HIDDEN void try_lease(hostile *self);
HIDDEN void try_dnotify(hostile *self);
HIDDEN void try_personality(hostile *self);
HIDDEN void try_sync(hostile *self);
HIDDEN void try_capget(hostile *self);
HIDDEN void try_getsid(hostile *self);
HIDDEN void try_sysinfo(hostile *self);
HIDDEN void try_syslog(hostile *self);
HIDDEN void try_perf(hostile *self);
HIDDEN void try_userfaultfd(hostile *self);
HIDDEN void try_int80(hostile *self);
HIDDEN void try_named_group(hostile *self);
HIDDEN void try_rcvbuf(hostile *self);
HIDDEN void try_locks(hostile *self);
HIDDEN void try_ofd_lock(hostile *self);
HIDDEN void try_sockq(hostile *self);
HIDDEN void try_fast_sockets(hostile *self);
HIDDEN void try_unresolved(hostile *self);
HIDDEN void try_ring(hostile *self);
HIDDEN void try_reset_small(hostile *self);
HIDDEN void try_tiny_orphans(hostile *self);
HIDDEN void try_peer_pidfd(hostile *self);
HIDDEN void try_udp_unhashed(hostile *self);
HIDDEN void try_orphans(hostile *self);
HIDDEN void try_hidden_sockets(hostile *self);
HIDDEN void try_udp_cork(hostile *self);
HIDDEN void try_mapped_sockets(hostile *self);
HIDDEN void try_reset_orphans(hostile *self);
HIDDEN void try_mapped_flocks(hostile *self);
HIDDEN void try_map_locked(hostile *self);
HIDDEN void try_cmdline(hostile *self);
HIDDEN void try_rcvlowat(hostile *self);
HIDDEN void try_resolve(hostile *self);
HIDDEN void try_fill(hostile *self);
HIDDEN void try_fill_badname(hostile *self);
HIDDEN void try_unlinked(hostile *self);
HIDDEN void try_mapped(hostile *self);
HIDDEN void try_read_file(hostile *self);

/* hiding.c */
HIDDEN void try_fdtable(hostile *self);
HIDDEN void try_mptcp(hostile *self);
HIDDEN void try_udplite(hostile *self);
HIDDEN void try_leader(hostile *self);
HIDDEN void try_shared_anon(hostile *self);
HIDDEN void try_devzero(hostile *self);
HIDDEN void try_rt(hostile *self);
HIDDEN void try_hidden_dir(hostile *self);
HIDDEN void try_umask(hostile *self);
HIDDEN void try_md5sig(hostile *self);
HIDDEN void try_mcast(hostile *self);
HIDDEN void try_ri(hostile *self);
HIDDEN void try_proc_task(hostile *self);
HIDDEN void try_pass_fd(hostile *self);
HIDDEN void try_wide_level(hostile *self);
HIDDEN void try_linger(hostile *self);
HIDDEN void try_user_timeout(hostile *self);
HIDDEN void try_vmas(hostile *self);
HIDDEN void try_core(hostile *self);
HIDDEN void try_whiteout(hostile *self);
HIDDEN void try_buried(hostile *self);
HIDDEN void try_moving(hostile *self);
HIDDEN void try_unstoppable(hostile *self);
HIDDEN void try_tracked_leak(hostile *self);

#endif
