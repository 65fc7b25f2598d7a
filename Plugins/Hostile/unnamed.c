/* Files with no name left (red team 6, R6-1): on a tmpfs their pages are memory, held as long
   as a descriptor or a mapping holds the file, and no walk of the container finds them. */
#include "attempts.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

void hold_a_second(void) {
    struct timespec hold = {1, 0};
    nanosleep(&hold, NULL);
}

int write_mib(int fd, int mib) {
    static char chunk[1 << 20];
    memset(chunk, 'u', sizeof chunk);
    for (int i = 0; i < mib; i++) {
        ssize_t n = write(fd, chunk, sizeof chunk);
        if (n != (ssize_t)sizeof chunk) return n < 0 ? errno : ENOSPC;
    }
    return 0;
}

/* "unlinked N": N MiB (64 unless told) written to a file it unlinks and keeps open. */
void try_unlinked(hostile *self) {
    int mib = number_in_document(self, "unlinked", 64);
    char path[1200];
    snprintf(path, sizeof path, "%s/unlinked", container(self));
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { report_errno(self, "unlinked", errno); return; }
    if (unlink(path) < 0) { report_errno(self, "unlinked", errno); close(fd); return; }
    int e = write_mib(fd, mib);
    if (e) { report_errno(self, "unlinked", e); close(fd); return; }
    hold_a_second();
    report_ok(self, "unlinked", "holds %ld MiB in an unlinked file", (long)mib);
    close(fd);
}

/* "mapped N": N files of 1 MiB, each mapped by one page, closed and unlinked: only the
   mappings hold them. They stay until the process ends. */
void try_mapped(hostile *self) {
    int mib = number_in_document(self, "mapped", 64);
    char path[1200];
    for (int i = 0; i < mib; i++) {
        snprintf(path, sizeof path, "%s/mapped-%d", container(self), i);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) { report_errno(self, "mapped", errno); return; }
        int e = write_mib(fd, 1);
        void *page = e ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
        if (!e && page == MAP_FAILED) e = errno;
        close(fd);
        unlink(path);
        if (e) { report_errno(self, "mapped", e); return; }
    }
    hold_a_second();
    report_ok(self, "mapped", "holds %ld MiB in unlinked files it maps a page of", (long)mib);
}

/* "buried N size M": a file deleted while mapped (M MiB, 96 unless told), its line in /proc/self/maps
   put past N (1150 unless told) lines of 61 KB each: mappings of a one-page file 60 folders deep,
   every folder's name 255 newlines, which maps writes as four bytes each. 1150 of them fill the
   first 70 MB of maps, which the governor once read no further than 64 MiB (twenty-first red team:
   400 MiB to 1.2 GB held so under a 48 MiB budget). The file is filled through its mapping after its
   descriptor is closed and its name removed, each MiB then dropped from the page tables, so that
   only the mapping holds it and the footprint does not show it. Held two seconds, then let go. */
/* `count` one-page mappings, 8 KiB apart from `at`, of a one-page file 60 folders deep whose every folder is named
   with 255 newlines (61 KB each in /proc/self/maps); how many were made, or -errno. */
static long long_lines(hostile *self, long count, char *at) {
    char name[256];
    memset(name, '\n', 255);
    name[255] = 0;
    int dir = open(container(self), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int depth = 0; dir >= 0 && depth < 60; depth++) {
        if (mkdirat(dir, name, 0700) < 0 && errno != EEXIST) { int e = errno; close(dir); return -e; }
        int next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(dir);
        dir = next;
    }
    if (dir < 0) return -errno;
    int deep = openat(dir, name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    close(dir);
    if (deep < 0 || ftruncate(deep, 4096) < 0) { int e = errno; if (deep >= 0) close(deep); return -e; }
    long made = 0;
    for (long i = 0; i < count; i++)  /* a page apart: separate mappings, separate lines */
        if (mmap(at + i * 8192, 4096, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, deep, 0) != MAP_FAILED) made++;
    close(deep);
    return made;
}

void try_buried(hostile *self) {
    long lines = number_in_document(self, "buried", 1150), mib = number_in_document(self, "size", 96);
    char *low = (char *)0x100000000000UL, *high = (char *)0x600000000000UL;
    long made = long_lines(self, lines, low);
    if (made < 0) { report_errno(self, "buried", (int)-made); return; }
    char path[1200];
    snprintf(path, sizeof path, "%s/buried.dat", container(self));
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_t size = (size_t)mib << 20;
    char *map = fd < 0 || ftruncate(fd, (off_t)size) < 0 ? MAP_FAILED
              : mmap(high, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
    int e = errno;
    if (fd >= 0) close(fd);
    unlink(path);
    if (map == MAP_FAILED) { report_errno(self, "buried", e); munmap(low, (size_t)lines * 8192); return; }
    for (size_t at = 0; at < size; at += 1 << 20) {
        memset(map + at, 'b', 1 << 20);
        madvise(map + at, 1 << 20, MADV_DONTNEED);
    }
    hold_a_second();
    hold_a_second();
    munmap(map, size);
    munmap(low, (size_t)lines * 8192);
    char detail[200];
    snprintf(detail, sizeof detail, "held %ld MiB in a deleted file mapped past %ld long lines of its maps", mib, made);
    report(self, "buried", 1, detail);
}

/* "moving N size M": N files of M MiB (5 of 12 unless told), each written while named at 100 MiB/s, mapped by one
   page, closed and unlinked: only the mapping holds it, and two threads move the mappings to random
   places nonstop (mremap MREMAP_FIXED), listed before 55 long lines (3.4 MB) of /proc/self/maps that
   take the kernel milliseconds to write: a range read there is gone by the time it is looked up
   (twenty-first red team, F2: 384-768 MiB held so under a 48 MiB budget). Held a second, then let go. */
#define MOVING_MAX 16
static _Atomic uintptr_t moving_at[MOVING_MAX];
static atomic_int moving_made, moving_stop;
static uintptr_t moving_base;
static const unsigned long moving_slots = 1UL << 20;

static void *move_nonstop(void *arg) {
    unsigned long k = (unsigned long)(uintptr_t)arg * 7919;
    while (!atomic_load(&moving_stop)) {
        int made = atomic_load(&moving_made);
        for (int i = 0; i < made; i++) {
            uintptr_t from = atomic_load(&moving_at[i]);
            uintptr_t to = moving_base + ((k++ * 2654435761UL) % moving_slots) * 8192;
            void *now = mremap((void *)from, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)to);
            if (now != MAP_FAILED) atomic_store(&moving_at[i], (uintptr_t)now);
        }
    }
    return NULL;
}

void try_moving(hostile *self) {
    int files = number_in_document(self, "moving", 5), mib = number_in_document(self, "size", 12);
    if (files > MOVING_MAX) files = MOVING_MAX;
    char *lines = (char *)0x200000000000UL;
    moving_base = 0x10000000000UL;
    long padded = long_lines(self, 55, lines);  /* 3.4 MB of maps after the moving mappings, under the 4 MiB kbhost reads */
    if (padded < 0) { report_errno(self, "moving", (int)-padded); return; }
    atomic_store(&moving_made, 0);
    atomic_store(&moving_stop, 0);
    pthread_t movers[2];
    for (long t = 0; t < 2; t++) pthread_create(&movers[t], NULL, move_nonstop, (void *)t);
    int made = 0, e = 0;
    for (int i = 0; i < files && !e; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/moving-%d", container(self), i);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) { e = errno; break; }
        for (int m = 0; m < mib && !e; m++) {  /* 100 MiB/s: each file is counted while named, under the budget */
            e = write_mib(fd, 1);
            struct timespec nap = {0, 10 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        void *page = e ? MAP_FAILED : mmap((void *)(moving_base + (uintptr_t)i * 8192), 4096, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
        if (!e && page == MAP_FAILED) e = errno;
        close(fd);
        unlink(path);
        if (e) break;
        atomic_store(&moving_at[i], (uintptr_t)page);
        atomic_store(&moving_made, ++made);
    }
    hold_a_second();
    atomic_store(&moving_stop, 1);
    for (int t = 0; t < 2; t++) pthread_join(movers[t], NULL);
    for (int i = 0; i < made; i++) munmap((void *)atomic_load(&moving_at[i]), 4096);
    munmap(lines, 55 * 8192);
    if (e) { report_errno(self, "moving", e); return; }
    report_ok(self, "moving", "held %ld files it deleted, each by one page it moved nonstop", made);
}

/* "tracked-leak": six files of 4 MiB in its container, kept long enough for a count to find them
   (the host then holds each, a large file, by a descriptor of its own); a thread started here
   deletes them 0.2 s after the key returns and at once takes 100 MiB of anonymous memory, so that
   the governor ends it between two calls. The host's hold on the deleted files kept 280 MiB alive
   until the session's next call to the keyboard (twenty-second red team). */
static char leak_paths[6][1200];

static void *delete_and_take_memory(void *arg) {
    (void)arg;
    struct timespec wait = {0, 200 * 1000 * 1000};
    nanosleep(&wait, NULL);
    for (int i = 0; i < 6; i++) unlink(leak_paths[i]);
    size_t size = 100u << 20;
    char *memory = malloc(size);
    if (memory) memset(memory, 'm', size);
    for (;;) pause();
    return NULL;
}

void try_tracked_leak(hostile *self) {
    for (int i = 0; i < 6; i++) {
        snprintf(leak_paths[i], sizeof leak_paths[i], "%s/leak-%d", container(self), i);
        int fd = open(leak_paths[i], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) { report_errno(self, "tracked-leak", errno); return; }
        int e = write_mib(fd, 4);
        close(fd);
        if (e) { report_errno(self, "tracked-leak", e); return; }
    }
    struct timespec counted = {0, 300 * 1000 * 1000};
    nanosleep(&counted, NULL);
    pthread_t later;
    if (pthread_create(&later, NULL, delete_and_take_memory, NULL) == 0) pthread_detach(later);
    report(self, "tracked-leak", 1, "keeps 24 MiB of files a count found, to delete in 0.2 s as it takes 100 MiB");
}

/* "unstoppable N size M": N times, one thread spends ~0.45 s in a single call the kernel does not
   interrupt for a stop (madvise MADV_POPULATE_READ of a few GiB of untouched memory: page tables
   of the zero page, no memory), so that the governor's counts cannot stop it; meanwhile M MiB
   (0: none) are written to a file it deleted and let go before the call returns. The counts that
   could not stop it read nothing it held unnamed, and a limit on such counts in a row let it do
   this again and again (a review). */
static atomic_size_t stall_size;
static char *stall_region;

static void *stall_once(void *arg) {
    (void)arg;
    madvise(stall_region, atomic_load(&stall_size), MADV_POPULATE_READ);
    madvise(stall_region, atomic_load(&stall_size), MADV_DONTNEED);
    return NULL;
}

static long milliseconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

void try_unstoppable(hostile *self) {
    int cycles = number_in_document(self, "unstoppable", 3), mib = number_in_document(self, "size", 0);
    const size_t most = 6UL << 30;
    stall_region = mmap(NULL, most, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    char *zeros = mmap(NULL, (size_t)(mib > 0 ? mib : 1) << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (stall_region == MAP_FAILED || zeros == MAP_FAILED) { report_errno(self, "unstoppable", errno); return; }
    /* How long 256 MiB take here, to make one call last about 0.45 s. */
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (madvise(stall_region, 256UL << 20, MADV_POPULATE_READ) < 0) { report_errno(self, "unstoppable", errno); return; }
    long per256 = milliseconds_since(&start);
    madvise(stall_region, 256UL << 20, MADV_DONTNEED);
    size_t size = (256UL << 20) * (size_t)(450 / (per256 > 0 ? per256 : 1));
    atomic_store(&stall_size, size < (256UL << 20) ? (256UL << 20) : size > most ? most : size);
    long longest = 0;
    for (int c = 0; c < cycles; c++) {
        clock_gettime(CLOCK_MONOTONIC, &start);
        pthread_t stall;
        pthread_create(&stall, NULL, stall_once, NULL);
        struct timespec nap = {0, 30 * 1000 * 1000};
        nanosleep(&nap, NULL);
        if (mib > 0) {
            char path[1200];
            snprintf(path, sizeof path, "%s/unstoppable", container(self));
            int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (fd < 0) { report_errno(self, "unstoppable", errno); pthread_join(stall, NULL); return; }
            unlink(path);
            /* One write from untouched memory: its pages become the file's, in one call. */
            ssize_t n = write(fd, zeros, (size_t)mib << 20);
            struct timespec hold = {0, 250 * 1000 * 1000};
            nanosleep(&hold, NULL);
            close(fd);
            if (n != (ssize_t)mib << 20) { report_errno(self, "unstoppable", n < 0 ? errno : ENOSPC); pthread_join(stall, NULL); return; }
        }
        pthread_join(stall, NULL);
        long took = milliseconds_since(&start);
        if (took > longest) longest = took;
        nanosleep(&nap, NULL);
    }
    munmap(stall_region, most);
    munmap(zeros, (size_t)(mib > 0 ? mib : 1) << 20);
    char detail[200];
    snprintf(detail, sizeof detail, "kept its stops waiting %d times (the longest %ld ms), holding %d MiB deleted meanwhile",
             cycles, longest, mib);
    report(self, "unstoppable", 1, detail);
}
