/* kbhost-floor: the floors kbhost's benchmark measures against, in plain C so
   that they cost as little as a process can.
     kbhost-floor echo          echo every byte read on fd 3 back (ping-pong floor)
     kbhost-floor dlopen PATH   dlopen PATH, write one byte on fd 3, wait for EOF
                                (spawn-and-dlopen floor) */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    char buf[4096];
    if (argc >= 2 && strcmp(argv[1], "echo") == 0) {
        for (;;) {
            ssize_t n = read(3, buf, sizeof buf);
            if (n <= 0) return 0;
            if (write(3, buf, (size_t)n) != n) return 1;
        }
    }
    if (argc >= 3 && strcmp(argv[1], "dlopen") == 0) {
        if (!dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)) {
            fprintf(stderr, "kbhost-floor: %s\n", dlerror());
            return 1;
        }
        if (write(3, "r", 1) != 1) return 1;
        while (read(3, buf, sizeof buf) > 0) {}
        return 0;
    }
    fprintf(stderr, "usage: kbhost-floor echo | dlopen PATH\n");
    return 2;
}
