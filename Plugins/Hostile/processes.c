/* Other processes: tracing, signalling, reading, resourcing them, starting its own, SysV IPC. */
#include "attempts.h"

void try_ptrace(hostile *self) {
    pid_t host = victim(self);
    if (ptrace(PTRACE_ATTACH, host, NULL, NULL) < 0) { report_errno(self, "ptrace", errno); return; }
    waitpid(host, NULL, __WALL);
    ptrace(PTRACE_DETACH, host, NULL, NULL);
    report(self, "ptrace", 1, "attached to the victim");
}

void try_signal(hostile *self) {
    if (kill(victim(self), 0) < 0) { report_errno(self, "signal", errno); return; }
    report(self, "signal", 1, "may signal the victim");
}

void try_procmem(hostile *self) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)victim(self));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "procmem", errno); return; }
    close(fd);
    report(self, "procmem", 1, "opened the victim's memory");
}

void try_vmread(hostile *self) {
    char buf[8];
    struct iovec local = {buf, sizeof buf}, remote = {(void *)0x400000, sizeof buf};
    ssize_t n = process_vm_readv(victim(self), &local, 1, &remote, 1, 0);
    if (n < 0 && errno != EFAULT) { report_errno(self, "vmread", errno); return; }
    report(self, "vmread", 1, "reached the victim's memory");
}

void try_exec(hostile *self) {
    char *const argv[] = {"sh", "-c", "exit 0", NULL};
    execve("/bin/sh", argv, environ);
    report_errno(self, "exec", errno);  /* only reached when execve failed */
}

void try_fork(hostile *self) {
    pid_t pid = fork();
    if (pid < 0) { report_errno(self, "fork", errno); return; }
    if (pid == 0) _exit(0);
    waitpid(pid, NULL, 0);
    report(self, "fork", 1, "started a child process");
}

/* Calls that name another process: each would hurt it (or the host) for real. */
void try_prlimit(hostile *self) {
    struct rlimit none = {0, 0};  /* RLIMIT_FSIZE 0: SIGXFSZ at its next write */
    if (prlimit(victim(self), RLIMIT_FSIZE, &none, NULL) < 0) { report_errno(self, "prlimit", errno); return; }
    report_ok(self, "prlimit", "set RLIMIT_FSIZE of %ld to 0", victim(self));
}
void try_renice(hostile *self) {
    if (setpriority(PRIO_PROCESS, (id_t)victim(self), 19) < 0) { report_errno(self, "renice", errno); return; }
    report_ok(self, "renice", "reniced %ld to 19", victim(self));
}
void try_sched(hostile *self) {
    struct sched_param param = {0};
    if (sched_setscheduler(victim(self), SCHED_IDLE, &param) < 0) { report_errno(self, "sched", errno); return; }
    report_ok(self, "sched", "put %ld on SCHED_IDLE", victim(self));
}
void try_affinity(hostile *self) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    if (sched_setaffinity(victim(self), sizeof set, &set) < 0) { report_errno(self, "affinity", errno); return; }
    report_ok(self, "affinity", "pinned %ld to CPU 0", victim(self));
}
void try_ioprio(hostile *self) {
    long prio = 3L << 13;  /* IOPRIO_CLASS_IDLE */
    if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, victim(self), prio) < 0) { report_errno(self, "ioprio", errno); return; }
    report_ok(self, "ioprio", "put %ld on idle I/O", victim(self));
}
void try_setpgid(hostile *self) {
    if (setpgid(0, victim(self)) < 0) { report_errno(self, "setpgid", errno); return; }
    report_ok(self, "setpgid", "joined process group %ld", victim(self));
}

/* SysV IPC the tests set up with key 0x6b62 ("kb"): a segment and a queue holding "secret". */
void try_shm(hostile *self) {
    int id = shmget(0x6b62, 0, 0);
    if (id < 0) { report_errno(self, "shm", errno); return; }
    char *p = shmat(id, NULL, SHM_RDONLY);
    if (p == (void *)-1) { report_errno(self, "shm", errno); return; }
    char detail[64];
    snprintf(detail, sizeof detail, "read \"%.6s\"", p);
    shmdt(p);
    report(self, "shm", 1, detail);
}
void try_msgq(hostile *self) {
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
