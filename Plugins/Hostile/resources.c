/* The kernel's less obvious doors (io_uring, x32), memory the budget would not see, what
   the keyboard was handed, and terminal sequences typed as text. */
#include "attempts.h"

#include <time.h>
#include <pthread.h>
#include <sys/file.h>

void try_io_uring(hostile *self) {
    unsigned char params[120];  /* struct io_uring_params */
    memset(params, 0, sizeof params);
    long fd = syscall(SYS_io_uring_setup, 4, params);
    if (fd < 0) { report_errno(self, "io_uring", errno); return; }
    close((int)fd);
    report(self, "io_uring", 1, "set up a ring");
}

/* Memory the budget would not see. */
void try_memfd(hostile *self) {
    int fd = (int)syscall(SYS_memfd_create, "hostile", 0);
    if (fd < 0) { report_errno(self, "memfd", errno); return; }
    close(fd);
    report(self, "memfd", 1, "made a memfd");
}
void try_pipe(hostile *self) {
    int fds[2];
    if (pipe(fds) < 0) { report_errno(self, "pipe", errno); return; }
    close(fds[0]); close(fds[1]);
    report(self, "pipe", 1, "made a pipe");
}
void try_hugepages(hostile *self) {
    if (prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0) < 0) { report_errno(self, "hugepages", errno); return; }
    report(self, "hugepages", 1, "turned transparent huge pages back on");
}

/* What it was given: its environment's names, its working directory, its descriptors, the processes it sees. */
void try_env(hostile *self) {
    char names[1024] = "";
    for (char **e = environ; *e; e++) {
        size_t used = strlen(names);
        const char *eq = strchr(*e, '=');
        snprintf(names + used, sizeof names - used, "%s%.*s", used ? " " : "", (int)(eq ? eq - *e : (long)strlen(*e)), *e);
    }
    report(self, "env", 1, names);
}
void try_cwd(hostile *self) {
    char cwd[1024];
    if (!getcwd(cwd, sizeof cwd)) { report_errno(self, "cwd", errno); return; }
    report(self, "cwd", 1, cwd);
}
void try_fds(hostile *self) {
    char list[512] = "";
    for (int fd = 0; fd < 256; fd++) {
        if (fcntl(fd, F_GETFD) < 0) continue;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%d", used ? " " : "", fd);
    }
    report(self, "fds", 1, list);
}
void try_processes(hostile *self) {
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
void try_x32(hostile *self) {
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
void try_escape(hostile *self) {
    static const char seq[] = "\x1b[2J\x1b]52;c;aGk=\x07\xc2\x9b";
    fputs(seq, stderr);
    fputs("\n", stderr);
    fflush(stderr);
    self->host->insert_text(self->host->ctx, seq);
}

/* FIFOs: pipe buffers by another name, and a user's pipe quota to exhaust. */
void try_fifo(hostile *self) {
    char path[1200];
    snprintf(path, sizeof path, "%s/fifo", container(self));
    if (mknod(path, S_IFIFO | 0600, 0) < 0) { report_errno(self, "fifo", errno); return; }
    unlink(path);
    report(self, "fifo", 1, "made a FIFO in its container");
}

/* Kernel AIO contexts: a machine-wide limit (aio-max-nr) one keyboard could take. */
void try_aio(hostile *self) {
    unsigned long context = 0;
    if (syscall(SYS_io_setup, 1, &context) < 0) { report_errno(self, "aio", errno); return; }
    syscall(SYS_io_destroy, context);
    report(self, "aio", 1, "set up an AIO context");
}

/* Signals on I/O, aimed at another process (pid 1 of its namespace). */
void try_setown(hostile *self) {
    if (fcntl(3, F_SETOWN, 1) < 0) { report_errno(self, "setown", errno); return; }
    fcntl(3, F_SETOWN, 0);
    report(self, "setown", 1, "set the channel's owner to pid 1");
}

/* Its /tmp: usable (a file written and read back). */
void try_tmp(hostile *self) {
    int fd = open("/tmp/hostile-tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { report_errno(self, "tmp", errno); return; }
    ssize_t n = write(fd, "tmp", 3);
    close(fd);
    unlink("/tmp/hostile-tmp");
    report_ok(self, "tmp", "wrote %ld bytes to /tmp", (long)n);
}

/* Whether its /tmp holds /tmp/file.txt: only a folder of someone else's (a link swapped
   in for the container's tmp) would. stat needs no Landlock right. */
void try_tmp_peek(hostile *self) {
    struct stat st;
    if (stat("/tmp/file.txt", &st) < 0) { report_errno(self, "tmp-peek", errno); return; }
    report(self, "tmp-peek", 1, "/tmp/file.txt is there");
}

/* The group's defaults lock, taken through a read-only descriptor. */
void try_flock(hostile *self) {
    const char *dir = group_dir(self);
    char path[1200];
    snprintf(path, sizeof path, "%s/Library/Preferences/." GROUP ".lock", dir ? dir : "/nonexistent");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { report_errno(self, "flock", errno); return; }
    int r = flock(fd, LOCK_EX | LOCK_NB);
    int e = errno;
    close(fd);
    if (r < 0) { report_errno(self, "flock", e); return; }
    report(self, "flock", 1, "took its group's lock");
}

/* Locks held by mappings: "flocks N" (5,000 unless told) opens of one file in its container,
   each locked (flock, shared), mapped and closed: the mapping keeps the open file, and its
   lock, with no descriptor. */
void try_mapped_flocks(hostile *self) {
    int wanted = number_in_document(self, "flocks", 5000);
    char path[1200];
    snprintf(path, sizeof path, "%s/flocks.bin", container(self));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, 4096) < 0) { report_errno(self, "mapped-flocks", errno); return; }
    close(fd);
    int held = 0;
    for (; held < wanted; held++) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) { report_errno(self, "mapped-flocks", errno); return; }
        if (flock(fd, LOCK_SH | LOCK_NB) < 0 || mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
            int e = errno;
            close(fd);
            report_errno(self, "mapped-flocks", e);
            return;
        }
        close(fd);
    }
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    report_ok(self, "mapped-flocks", "holds %ld locks by mappings", held);
}

/* Page tables: a huge read-only mapping read once every 2 MiB holds almost no pages,
   but a page table for each 2 MiB (128 MiB of them for 64 GiB). */
void try_pagetables(hostile *self) {
    size_t size = 64ULL << 30;
    char *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { report_errno(self, "pagetables", errno); return; }
    volatile char sink = 0;
    for (size_t off = 0; off < size; off += 2u << 20) sink += p[off];
    (void)sink;
    /* Held for a second before the key returns, so that under a small budget the kill comes
       during this key, however late a loaded machine lets the governor look (it was once
       156 ms late, and the kill then fell in the next phase). */
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    report(self, "pagetables", 1, "read 64 GiB once every 2 MiB");
}

/* Threads by the thousand: kernel stacks the footprint does not show. */
static void *sleeper(void *arg) { (void)arg; pause(); return NULL; }
void try_threads(hostile *self) {
    int made = 0, error = 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (; made < 1000; made++) {
        pthread_t t;
        if ((error = pthread_create(&t, &attr, sleeper, NULL)) != 0) break;
        pthread_detach(t);
    }
    pthread_attr_destroy(&attr);
    char detail[128];
    snprintf(detail, sizeof detail, "started %d threads%s%s", made, error ? ", then " : "", error ? strerror(error) : "");
    report(self, "threads", made < 1000 ? 0 : 1, detail);
}

/* POSIX record locks: kernel memory (a file_lock each, 192 bytes) that /proc/PID/status
   does not show. "locks N" before the insertion point says how many (20,000 unless told,
   at most 200,000): every other byte of 200 files in its container (the kernel walks a
   file's locks on each new one: the more files, the faster), the files kept open so that
   the locks stay. Held for a second, so that a kill comes during this key. */
void try_locks(hostile *self) {
    int wanted = number_in_document(self, "locks", 20000);
    if (wanted > 200000) wanted = 200000;
    int per_file = (wanted + 199) / 200;
    char path[1200];
    snprintf(path, sizeof path, "%s/locks", container(self));
    mkdir(path, 0700);
    int held = 0;
    for (int file = 0; held < wanted; file++) {
        snprintf(path, sizeof path, "%s/locks/%d", container(self), file);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) { report_errno(self, "locks", errno); return; }
        for (int i = 0; i < per_file && held < wanted; i++, held++) {
            struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 2 * i, .l_len = 1 };
            if (fcntl(fd, F_SETLK, &fl) < 0) { report_errno(self, "locks", errno); return; }
        }
    }
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    report_ok(self, "locks", "holds %ld record locks", held);
}

/* An open file description lock: /proc/locks names no process for it. */
void try_ofd_lock(hostile *self) {
    char path[1200];
    snprintf(path, sizeof path, "%s/ofd.lock", container(self));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) { report_errno(self, "ofd-lock", errno); return; }
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
    int r = fcntl(fd, F_OFD_SETLK, &fl);
    int e = errno;
    close(fd);
    if (r < 0) { report_errno(self, "ofd-lock", e); return; }
    report(self, "ofd-lock", 1, "took an open file description lock");
}

/* Files in its container: "fill N" MiB (64 unless told), 1 MiB a file, in the folder `folder`.
   On a disk that is the user's disk; on a tmpfs (a KBHOST_HOME in /dev/shm, or a /tmp that is
   one) it is memory no process's footprint shows. Held for a second, so that a kill comes
   during this key. fill-badname's folder is named with bytes that are not UTF-8. */
static void fill_files(hostile *self, const char *what, const char *folder) {
    int mib = number_in_document(self, "fill", 64);
    static char chunk[1 << 20];
    memset(chunk, 'x', sizeof chunk);
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", container(self), folder);
    mkdir(path, 0700);
    for (int i = 0; i < mib; i++) {
        snprintf(path, sizeof path, "%s/%s/%d", container(self), folder, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) { report_errno(self, what, errno); return; }
        ssize_t n = write(fd, chunk, sizeof chunk);
        int e = errno;
        close(fd);
        if (n != (ssize_t)sizeof chunk) { report_errno(self, what, n < 0 ? e : ENOSPC); return; }
    }
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
    report_ok(self, what, "wrote %ld MiB to its container", mib);
}

void try_fill(hostile *self) { fill_files(self, "fill", "fill"); }
void try_fill_badname(hostile *self) { fill_files(self, "fill-badname", "\xff\xfe"); }
