// The filesystem the keyboard sees (kbh_isolate_filesystem): at load, the
// keyboard process builds a read-only tmpfs holding, at their usual paths, only
// what kbh_sandbox.h's request lists, then pivots into it. The namespaces it
// does this in are isolation.c's.
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
#include <linux/openat2.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define KBH_MOUNT_ATTR_RDONLY 0x00000001
#define KBH_MOUNT_ATTR_NOSUID 0x00000002
#define KBH_MOUNT_ATTR_NODEV 0x00000004
#define KBH_MOUNT_ATTR_NOEXEC 0x00000008

struct kbh_mount_attr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};

enum { KIND_READ, KIND_WRITE, KIND_DEVICE, KIND_BUNDLE };

struct source {
    char path[PATH_MAX];   // where it appears (the same path as outside)
    int fd;                // a detached copy of the mount (open_tree)
    int kind;
    bool directory;
    char link[PATH_MAX];   // for a symbolic link: its target, recreated as such
};

struct plan {
    struct source *items;
    int count, capacity;
};

static bool is_beneath(const char *path, const char *dir) {
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return true;
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

static int plan_add_checked(struct plan *p, const char *path, int kind, const unsigned long long *identity, char *err, size_t size);

static int plan_add(struct plan *p, const char *path, int kind, char *err, size_t size) {
    return plan_add_checked(p, path, kind, NULL, err, size);
}

// `identity`: for KIND_BUNDLE, (st_dev, st_ino) as the host checked it, or NULL.
static int plan_add_checked(struct plan *p, const char *path, int kind, const unsigned long long *identity, char *err, size_t size) {
    if (!path || path[0] != '/') return 0;
    char clean[PATH_MAX];
    snprintf(clean, sizeof clean, "%s", path);
    size_t len = strlen(clean);
    while (len > 1 && clean[len - 1] == '/') clean[--len] = 0;
    struct stat st;
    // The keyboard's bundle and library folders, as the host checked them: real paths, opened with no
    // link followed anywhere on the way. A link put in place of one of their folders since (in a
    // KBHOST_KEYBOARDS folder another user may write) made /tmp the keyboard's to read (twenty-fifth red team).
    int strict = -1;
    if (kind == KIND_BUNDLE) {
        struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
        strict = (int)syscall(SYS_openat2, AT_FDCWD, clean, &how, sizeof how);
        if (strict < 0 && errno == ENOENT) return 0;
        if (strict < 0 || fstat(strict, &st) < 0) {
            kbh_say(err, size, errno == ELOOP
                    ? "sandbox: %s, the keyboard's own folder, is reached through a symbolic link now; refused (it was a real folder when kbhost checked it)"
                    : "sandbox: cannot open %s, the keyboard's own folder: %s", clean, strerror(errno));
            if (strict >= 0) close(strict);
            return -1;
        }
        // And it is the folder the host checked, not another renamed into its place since (a review).
        if (identity && ((unsigned long long)st.st_dev != identity[0] || (unsigned long long)st.st_ino != identity[1])) {
            kbh_say(err, size, "sandbox: %s, the keyboard's own folder, is another folder than the one kbhost checked (one was renamed into its place); refused", clean);
            close(strict);
            return -1;
        }
        kind = KIND_READ;
    } else if (lstat(clean, &st) < 0) return 0;  // not on this system (/lib32, say)
    // A read-only path already inside another read-only one needs no mount of
    // its own, when no symbolic link in it leads elsewhere.
    char real[PATH_MAX];
    bool canonical = realpath(clean, real) && strcmp(real, clean) == 0;
    for (int i = 0; i < p->count; i++) {
        struct source *s = &p->items[i];
        if (strcmp(s->path, clean) == 0 || (canonical && kind == KIND_READ && s->kind == KIND_READ && s->directory && is_beneath(clean, s->path))) {
            if (strcmp(s->path, clean) == 0 && kind == KIND_WRITE) s->kind = KIND_WRITE;
            if (strict >= 0) close(strict);
            return 0;
        }
    }
    if (p->count == p->capacity) {
        int capacity = p->capacity ? p->capacity * 2 : 32;
        struct source *items = realloc(p->items, (size_t)capacity * sizeof *items);
        if (!items) {
            if (strict >= 0) close(strict);
            kbh_say(err, size, "sandbox: out of memory");
            return -1;
        }
        p->items = items;
        p->capacity = capacity;
    }
    struct source *s = &p->items[p->count];
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", clean);
    s->kind = kind;
    s->fd = -1;
    if (S_ISLNK(st.st_mode) && kind == KIND_READ) {
        ssize_t n = readlink(clean, s->link, sizeof s->link - 1);
        if (n <= 0) return 0;
        s->link[n] = 0;
        p->count++;
        // What it points to must be there too (for /lib -> usr/lib: /usr).
        char target[PATH_MAX];
        if (s->link[0] == '/') snprintf(target, sizeof target, "%s", s->link);
        else {
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s", clean);
            char *slash = strrchr(dir, '/');
            if (slash == dir) dir[1] = 0; else if (slash) *slash = 0;
            snprintf(target, sizeof target, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, s->link);
        }
        char resolved[PATH_MAX];
        if (realpath(target, resolved)) return plan_add(p, resolved, kind, err, size);
        return 0;
    }
    s->directory = S_ISDIR(st.st_mode);
    // No link followed, and the same file as checked: a folder swapped for a link since the lstat
    // above is refused, never mounted from wherever the link leads (twenty-third red team, read).
    s->fd = strict >= 0
        ? (int)syscall(SYS_open_tree, strict, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH)
        : (int)syscall(SYS_open_tree, AT_FDCWD, clean, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
    if (strict >= 0) close(strict);
    if (s->fd < 0) {
        kbh_say(err, size, "sandbox: cannot take %s into the keyboard's namespace: %s", clean, strerror(errno));
        return -1;
    }
    struct stat now;
    if (fstat(s->fd, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
        kbh_say(err, size, "sandbox: %s changed while the keyboard's namespace was made (a folder or file replaced, or a link put in its place)", clean);
        close(s->fd);
        s->fd = -1;
        return -1;
    }
    struct kbh_mount_attr attr = { .attr_set = KBH_MOUNT_ATTR_NOSUID };
    if (kind != KIND_DEVICE) attr.attr_set |= KBH_MOUNT_ATTR_NODEV;
    if (kind != KIND_WRITE) attr.attr_set |= KBH_MOUNT_ATTR_RDONLY;
    if (syscall(SYS_mount_setattr, s->fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0) {
        kbh_say(err, size, "sandbox: cannot make %s read-only in the keyboard's namespace: %s", clean, strerror(errno));
        close(s->fd);
        return -1;
    }
    p->count++;
    return 0;
}

// mkdir -p of `path` below `root` (a path in the new tmpfs).
static int make_parents(const char *root, const char *path, bool last_is_directory, char *err, size_t size) {
    char full[PATH_MAX * 2];
    snprintf(full, sizeof full, "%s%s", root, path);
    size_t skip = strlen(root);
    for (char *c = full + skip + 1; *c; c++) {
        if (*c != '/') continue;
        *c = 0;
        if (mkdir(full, 0755) < 0 && errno != EEXIST) {
            kbh_say(err, size, "sandbox: cannot make %s in the keyboard's root: %s", full + skip, strerror(errno));
            return -1;
        }
        *c = '/';
    }
    if (last_is_directory) {
        if (mkdir(full, 0755) < 0 && errno != EEXIST) {
            kbh_say(err, size, "sandbox: cannot make %s in the keyboard's root: %s", path, strerror(errno));
            return -1;
        }
    } else {
        int fd = open(full, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd >= 0) close(fd);
        else if (errno != EEXIST && errno != EROFS && errno != EISDIR) {
            kbh_say(err, size, "sandbox: cannot make %s in the keyboard's root: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const struct source *)a)->path, ((const struct source *)b)->path);
}

int kbh_isolate_filesystem(const kbh_sandbox_request *q, const char *const *system_paths, size_t system_count,
                           char *err, size_t size) {
    struct plan p = {0};
    int rc = 0;
    // Everything is taken as a detached mount first: the new root may then be
    // mounted anywhere, even over a folder that holds one of them.
    for (size_t i = 0; rc == 0 && i < system_count; i++) rc = plan_add(&p, system_paths[i], KIND_READ, err, size);
    // Not /dev/zero: shared, its mapping is memory the budget could not follow (as MAP_SHARED | MAP_ANONYMOUS).
    static const char *const devices[] = { "/dev/null", "/dev/urandom", "/dev/random" };
    for (size_t i = 0; rc == 0 && i < sizeof devices / sizeof *devices; i++) rc = plan_add(&p, devices[i], KIND_DEVICE, err, size);
    for (size_t i = 0; rc == 0 && i < q->read_path_count; i++)
        rc = plan_add_checked(&p, q->read_paths[i], KIND_BUNDLE, q->read_identities ? q->read_identities + 2 * i : NULL, err, size);
    for (size_t i = 0; rc == 0 && i < q->group_path_count; i++)
        rc = plan_add(&p, q->group_paths[i], q->open_access ? KIND_WRITE : KIND_READ, err, size);
    char tmp[PATH_MAX] = "";
    if (rc == 0 && q->container && q->container[0]) {
        rc = plan_add(&p, q->container, KIND_WRITE, err, size);
        snprintf(tmp, sizeof tmp, "%s/tmp", q->container);
    }
    // Its /tmp is its container's (on disk: nothing held in memory), unless
    // something it must see lives under /tmp (a test's KBHOST_HOME): then /tmp
    // holds only that, and TMPDIR still names the container's.
    for (int i = 0; i < p.count; i++) if (is_beneath(p.items[i].path, "/tmp")) tmp[0] = 0;
    int tmp_fd = -1;
    if (rc == 0 && tmp[0]) {
        // `tmp` is the keyboard's to replace: a link there (planted, or swapped in
        // between the host's check and now) must never become its /tmp. Opened
        // without following a link, as one name below the container, then cloned.
        int container = open(q->container, O_PATH | O_DIRECTORY | O_CLOEXEC);
        int dir = container < 0 ? -1 : openat(container, "tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        if (container >= 0) close(container);
        if (dir < 0) {
            kbh_say(err, size, "sandbox: %s is not a folder of the keyboard's own (%s); it cannot be its /tmp", tmp,
                    saved == ELOOP || saved == ENOTDIR ? "a symbolic link or a file is there" : strerror(saved));
            rc = -1;
        } else {
            tmp_fd = (int)syscall(SYS_open_tree, dir, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
            if (tmp_fd < 0) { kbh_say(err, size, "sandbox: cannot take %s as the keyboard's /tmp: %s", tmp, strerror(errno)); rc = -1; }
            close(dir);
            struct kbh_mount_attr attr = { .attr_set = KBH_MOUNT_ATTR_NOSUID | KBH_MOUNT_ATTR_NODEV | KBH_MOUNT_ATTR_NOEXEC };
            if (tmp_fd >= 0 && syscall(SYS_mount_setattr, tmp_fd, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0) {
                kbh_say(err, size, "sandbox: cannot make the keyboard's /tmp nosuid: %s", strerror(errno));
                rc = -1;
            }
        }
    }
    const char *root = "/tmp";
    if (rc == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        kbh_say(err, size, "sandbox: cannot make the mounts private: %s", strerror(errno));
        rc = -1;
    }
    if (rc == 0 && mount("kbhost", root, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,nr_inodes=512,mode=0755") < 0) {
        kbh_say(err, size, "sandbox: cannot mount the keyboard's root: %s", strerror(errno));
        rc = -1;
    }
    // Parents before children, so a child mounts over what its parent shows.
    if (rc == 0) qsort(p.items, (size_t)p.count, sizeof *p.items, by_path);
    char target[PATH_MAX * 2];
    for (int i = 0; rc == 0 && i < p.count; i++) {
        struct source *s = &p.items[i];
        snprintf(target, sizeof target, "%s%s", root, s->path);
        if (s->link[0]) {
            if ((rc = make_parents(root, s->path, false, err, size)) == 0) {
                unlink(target);
                if (symlink(s->link, target) < 0 && errno != EEXIST) {
                    kbh_say(err, size, "sandbox: cannot link %s in the keyboard's root: %s", s->path, strerror(errno));
                    rc = -1;
                }
            }
            continue;
        }
        struct stat st;
        if (stat(target, &st) < 0) rc = make_parents(root, s->path, s->directory, err, size);
        if (rc == 0 && syscall(SYS_move_mount, s->fd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
            kbh_say(err, size, "sandbox: cannot mount %s in the keyboard's root: %s", s->path, strerror(errno));
            rc = -1;
        }
    }
    // With open access through the relay, names resolve through the relay's DNS forwarder
    // (slirp4netns's 10.0.2.3, which asks the host's resolver): an /etc/resolv.conf saying so.
    if (rc == 0 && q->open_access && q->network_isolated) {
        snprintf(target, sizeof target, "%s/etc", root);
        if (mkdir(target, 0755) < 0 && errno != EEXIST) rc = -1;
        snprintf(target, sizeof target, "%s/etc/resolv.conf", root);
        struct stat st;
        if (rc == 0 && lstat(target, &st) < 0) {  /* unless the manifest lists the host's (KBHostReadOnlyPaths) */
            int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            static const char text[] = "nameserver 10.0.2.3\n";
            if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1)) rc = -1;
            if (fd >= 0) close(fd);
        }
        if (rc < 0) kbh_say(err, size, "sandbox: cannot write the keyboard's /etc/resolv.conf: %s", strerror(errno));
    }
    // Its own /tmp, and a /proc of its PID namespace.
    if (rc == 0 && tmp_fd >= 0) {
        snprintf(target, sizeof target, "%s/tmp", root);
        if (mkdir(target, 01777) < 0 && errno != EEXIST) rc = -1;
        if (rc == 0 && syscall(SYS_move_mount, tmp_fd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0) rc = -1;
        if (rc < 0) kbh_say(err, size, "sandbox: cannot mount the keyboard's /tmp: %s", strerror(errno));
    }
    if (rc == 0) {
        snprintf(target, sizeof target, "%s/proc", root);
        mkdir(target, 0555);
        if (mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
            kbh_say(err, size, "sandbox: cannot mount /proc for the keyboard's PID namespace: %s", strerror(errno));
            rc = -1;
        }
    }
    for (int i = 0; i < p.count; i++) if (p.items[i].fd >= 0) close(p.items[i].fd);
    free(p.items);
    if (tmp_fd >= 0) close(tmp_fd);
    if (rc != 0) return rc;
    // Into the new root; the old one is detached and gone.
    if (chdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
        kbh_say(err, size, "sandbox: cannot switch to the keyboard's root: %s", strerror(errno));
        return -1;
    }
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
        kbh_say(err, size, "sandbox: cannot make the keyboard's root read-only: %s", strerror(errno));
        return -1;
    }
    // With open access in a network namespace of its own, the host's relay (slirp4netns) is its
    // network; without, it shares the host's.
    if (!q->open_access && !q->network_isolated && unshare(CLONE_NEWNET) < 0) {
        kbh_say(err, size, "sandbox: cannot give the keyboard a network namespace of its own: %s", strerror(errno));
        return -1;
    }
    (void)sethostname("keyboard", 8);
    if (q->container && q->container[0] && chdir(q->container) < 0) {
        kbh_say(err, size, "sandbox: cannot enter the keyboard's container %s: %s", q->container, strerror(errno));
        return -1;
    }
    return 0;
}
