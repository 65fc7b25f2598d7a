/* Files: outside its container, its group's, the host's services for them, and their metadata. */
#include "attempts.h"

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

void try_neighbor(hostile *self) {
    char path[1200];
    snprintf(path, sizeof path, "%s/../dev.kbhost.Calculator", container(self));
    try_list(self, "neighbor", path);
}

void try_settings(hostile *self) {
    char path[1200];
    snprintf(path, sizeof path, "%s/../../../settings.json", container(self));
    try_read(self, "settings", path);
}

void try_home(hostile *self) { try_list(self, "home", "/root"); }
void try_passwd(hostile *self) { try_read(self, "passwd", "/etc/passwd"); }

/* Any file: the path after the last "file " before the insertion point (up to a space). */
void try_read_file(hostile *self) {
    const char *before = self->host->document_context_before_input(self->host->ctx);
    const char *found = NULL;
    for (const char *p = before ? before : ""; (p = strstr(p, "file ")); p += 5) found = p + 5;
    char path[1024] = "/nonexistent";
    if (found) {
        size_t n = strcspn(found, " ");
        if (n >= sizeof path) n = sizeof path - 1;
        memcpy(path, found, n);
        path[n] = 0;
    }
    try_read(self, "read-file", path);
}
void try_own(hostile *self) { try_write(self, "own", container(self), "note.txt"); }

void try_group_write(hostile *self) { try_write(self, "group-write", group_dir(self), "hostile.txt"); }
void try_group_read(hostile *self) {
    const char *dir = group_dir(self);
    if (!dir) { report(self, "group-read", 0, "no such folder"); return; }
    try_list(self, "group-read", dir);
}

/* Through the host's service, as the SDK's GroupDefaults does. */
void try_defaults(hostile *self) {
    const char *text = "escaped";
    kbh_value_v1 v = {.type = KBH_VALUE_STRING, .bytes = (const uint8_t *)text, .length = strlen(text)};
    int32_t rc = self->host->defaults_set(self->host->ctx, GROUP, "hostile", &v);
    if (rc != 0) {
        report(self, "defaults", 0, self->host->last_error(self->host->ctx));
        return;
    }
    report(self, "defaults", 1, "wrote hostile = escaped");
}

void try_pasteboard(hostile *self) {
    const char *text = NULL;
    int32_t rc = self->host->pasteboard_get(self->host->ctx, &text);
    if (rc != 0) { report(self, "pasteboard", 0, self->host->last_error(self->host->ctx)); return; }
    char detail[512];
    snprintf(detail, sizeof detail, "read \"%.200s\"", text ? text : "");
    report(self, "pasteboard", 1, detail);
}

/* Metadata outside its container. */
void try_chmod(hostile *self) {
    char path[1200];
    home_file(self, path, sizeof path, "settings.json");
    if (chmod(path, 0) < 0) { report_errno(self, "chmod", errno); return; }
    report(self, "chmod", 1, "made settings.json unreadable");
}
void try_chmod_group(hostile *self) {
    const char *dir = group_dir(self);
    if (!dir || chmod(dir, 0777) < 0) { report_errno(self, "chmod-group", dir ? errno : ENOENT); return; }
    report(self, "chmod-group", 1, "made its group folder 0777");
}
void try_utime(hostile *self) {
    const char *dir = group_dir(self);
    if (!dir || utimensat(AT_FDCWD, dir, NULL, 0) < 0) { report_errno(self, "utime", dir ? errno : ENOENT); return; }
    report(self, "utime", 1, "touched its group folder");
}
void try_chown(hostile *self) {
    if (fchownat(AT_FDCWD, container(self), getuid(), getgid(), 0) < 0) { report_errno(self, "chown", errno); return; }
    report(self, "chown", 1, "chowned its container");
}
void try_inotify(hostile *self) {
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
