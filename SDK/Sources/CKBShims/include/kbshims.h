/* Wrappers for system calls Swift cannot call directly: variadic ones
   (prctl, syscall, fcntl) and ones Glibc's module does not import
   (pidfd_*, the _np functions). Prefixed kbs_. Implemented in shims.c, which
   is compiled with _GNU_SOURCE; this header stays free of it so that its
   declarations agree with Swift's Glibc module. */
#ifndef KB_SHIMS_H
#define KB_SHIMS_H

#include <spawn.h>
#include <stddef.h>
#include <sys/types.h>

int kbs_pidfd_open(pid_t pid);
int kbs_pidfd_send_signal(int pidfd, int sig);
/* Reap the child behind a pidfd. Returns 0 and fills *code (0 if still
   running with nohang, else CLD_EXITED, CLD_KILLED, CLD_DUMPED) and *status. */
int kbs_waitid_pidfd(int pidfd, int nohang, int *code, int *status);

int kbs_set_pdeathsig(int sig);
/* Sets another process's RLIMIT_NOFILE (soft and hard) to `limit`: prlimit(2). */
int kbs_limit_descriptors(int pid, unsigned long limit);
int kbs_set_no_new_privs(void);
/* Names the calling thread (PR_SET_NAME: the kernel keeps the first 15 bytes). */
int kbs_set_thread_name(const char *name);
int kbs_set_nonblocking(int fd);
int kbs_dup_cloexec_above(int fd, int minimum);
int kbs_set_pipe_size(int fd, int size);
/* Whether `path` is on a tmpfs (statfs: TMPFS_MAGIC); 1 yes, 0 no, -1 with errno. */
int kbs_is_tmpfs(const char *path);
/* Where a directory entry's name is, read in place: `entry->d_name` copied whole (Swift's
   `entry.pointee.d_name`) is 256 bytes, past the record's d_reclen, and can fault at the end of
   readdir's buffer (Foundation's Process.run did: swift-corelibs-foundation PR #5472). */
const char *kbs_dirent_name(const void *entry);  /* a struct dirent */
/* openat(2) with O_NOATIME where the caller may (it owns the file, or is root), else without: a
   folder listed so keeps its access time, which a process watching it would read as "listed now". */
int kbs_openat_unseen(int dirfd, const char *name, int flags);
/* An O_PATH | O_NOFOLLOW | O_CLOEXEC descriptor of `name` in `dirfd`: a handle on the file itself,
   wherever it is renamed to, which reads and writes nothing. */
int kbs_openat_path(int dirfd, const char *name);
/* The default stack size of threads created from now on. */
int kbs_set_default_thread_stack(size_t bytes);
int kbs_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);
char **kbs_environ(void);
int kbs_pipe_cloexec(int fds[2]);
/* The uid of the peer of a Unix socket (SO_PEERCRED); 0 on success. */
int kbs_peer_uid(int fd, uid_t *uid);

/* The kernel memory one of another process's descriptors holds in its queues, if it is a TCP or
   UDP socket (IPv4 or IPv6): the descriptor is taken with pidfd_getfd (as a tracer may), asked
   with SO_MEMINFO (receive memory + send queue + backlog, as the kernel charges them) and
   closed. 1 with *bytes set; 0 when it is something else; -1 with errno when it cannot be taken
   (EPERM, ESRCH, ENOSYS before Linux 5.6, EBADF for a descriptor closed meanwhile). */
/* A copy of descriptor `fd` of the process `pidfd` names (pidfd_getfd, O_CLOEXEC), or -1 with errno. */
int kbs_pidfd_getfd(int pidfd, int fd);
/* Every TCP and UDP socket (IPv4 and IPv6, any state) in the tables of the network namespace the
   sock_diag socket `diag` was made in, asked of the kernel in one dump: what their queues hold as it
   charges them (SO_MEMINFO's figures: receive, max(write queued, write charged), backlog), in
   *bytes, and how many showed, in *sockets. A socket with no descriptor (closed with data still
   to send, or closed while another thread reads it) shows as any other; one out of the tables (a
   UDP socket disconnected, a TCP socket reset) does not: seen[i] is set for each of the `known`
   inodes (sorted) the dump listed, so that the others can be asked by descriptor. 0, or -1 with errno. */
int kbs_diag_socket_memory(int diag, const unsigned long long *known, int known_count, unsigned char *seen,
                           long long *bytes, int *sockets);
/* Destroys (SOCK_DESTROY: reset, queues freed) every TCP socket of the network namespace the
   sock_diag socket `diag` was made in, but those in TIME-WAIT: for a keyboard's network once the
   keyboard has ended, where what it closed with data still to send would otherwise stay for
   minutes as orphans nobody counts. *destroyed is how many went (past a socket that could not be
   destroyed, the others still are). 0, or -1 with the first errno (EOPNOTSUPP on a kernel built
   without CONFIG_INET_DIAG_DESTROY, EPERM without CAP_NET_ADMIN there). */
int kbs_diag_destroy_tcp(int diag, int *destroyed);
/* Whether this kernel destroys sockets through sock_diag (CONFIG_INET_DIAG_DESTROY): 1, 0, or -1
   when it cannot be told (no sock_diag). */
int kbs_socket_destroy_supported(void);
/* Moves the calling thread into the network namespace `fd` names (setns). */
int kbs_join_network(int fd);
int kbs_socket_queued(int pidfd, int fd, long long *bytes, int relay);
/* (relay: a TCP socket is set to be reset when it is closed, SO_LINGER {1, 0}, rather than kept
   by the kernel as an orphan with what it still had to send.) */

/* What this end of a Unix stream socket sent that the other end has not read yet (SIOCOUTQ), or -1. */
int kbs_unread_sent(int fd);
/* openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS (Linux 5.6): opens `path`
   beneath `dirfd`, failing with ELOOP at any symbolic link and EXDEV on any way
   out of it (`..` above it, an absolute path). -1 with errno ENOSYS
   where the kernel (or a seccomp filter) lacks the call: then walk with openat. */
int kbs_open_beneath(int dirfd, const char *path, int flags);
/* An O_PATH | O_NOFOLLOW | O_CLOEXEC descriptor of `path` beneath `dirfd`, no link followed on the way. */
int kbs_open_path_beneath(int dirfd, const char *path);
/* An O_PATH | O_CLOEXEC descriptor of `path` (links followed): looks at what is there without opening it. */
int kbs_open_path(const char *path);
/* Whether `path` (not followed) has an access ACL beyond its mode bits: 1, 0, or -1 on error. */
int kbs_has_access_acl(const char *path);
/* The same through a descriptor opened for reading. */
int kbs_fd_has_access_acl(int fd);
/* The CPUs a thread (or process: tid = pid) may run on, as a mask of CPUs 0–63
   (sched_getaffinity/sched_setaffinity); 0 on success. The benchmark pins
   processes to one CPU with these. */
int kbs_get_affinity(pid_t tid, unsigned long long *mask);
int kbs_set_affinity(pid_t tid, unsigned long long mask);
/* A new pseudo-terminal: returns the master fd and writes the slave's path; -1 on failure. */
int kbs_open_pty(char *slave_path, size_t length);

#endif
