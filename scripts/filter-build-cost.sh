#!/bin/sh
# What the seccomp filter costs to build (kbh_sandbox_prepare: libseccomp's rules and the BPF
# export, done once per extension process), this tree's against another revision's, run
# alternately so that a loaded machine weighs on both alike:
#     scripts/filter-build-cost.sh [REVISION] [LOADS]      (defaults: main, 300)
set -eu
rev=${1:-main}
loads=${2:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/this" "$work/that"
cp "$root"/Sources/CKBSandbox/seccomp.c "$root"/Sources/CKBSandbox/internal.h "$work/this/"
[ -f "$root/Sources/CKBSandbox/allowlist.c" ] && cp "$root/Sources/CKBSandbox/allowlist.c" "$work/this/"
for f in seccomp.c internal.h allowlist.c; do
    git -C "$root" show "$rev:Sources/CKBSandbox/$f" > "$work/that/$f" 2>/dev/null || rm -f "$work/that/$f"
done
cat > "$work/main.c" <<'C'
#define _GNU_SOURCE
#include "kbh_sandbox.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void kbh_say(char *err, size_t size, const char *format, ...) {
    va_list a; va_start(a, format); vsnprintf(err, size, format, a); va_end(a);
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int by_value(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    int n = atoi(argv[2]), open_access = atoi(argv[3]);
    double *t = malloc(sizeof *t * (size_t)n);
    char err[256];
    for (int i = 0; i < n; i++) {
        double s = now();
        if (kbh_sandbox_prepare(open_access, err, sizeof err)) { puts(err); return 1; }
        t[i] = now() - s;
    }
    qsort(t, (size_t)n, sizeof *t, by_value);
    printf("%-28s open access %-3s p50 %.3f ms  p10 %.3f ms  p90 %.3f ms\n", argv[1], open_access ? "yes" : "no",
           t[n / 2], t[n / 10], t[n * 9 / 10]);
    return 0;
}
C
for side in this that; do
    cc -O2 -I"$root/Sources/CKBSandbox/include" -I"$work/$side" -o "$work/$side.bin" "$work/main.c" "$work/$side"/*.c -lseccomp
done
for round in 1 2 3; do
    for open_access in 0 1; do
        "$work/that.bin" "$rev" "$loads" "$open_access"
        "$work/this.bin" "this tree" "$loads" "$open_access"
    done
done
