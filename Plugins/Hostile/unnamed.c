/* Files with no name left (red team 6, R6-1): on a tmpfs their pages are memory, held as long
   as a descriptor or a mapping holds the file, and no walk of the container finds them. */
#include "attempts.h"

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
