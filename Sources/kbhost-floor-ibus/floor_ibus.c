/* kbhost-floor-ibus: the IBus floor kbhost's benchmark measures `kbhost ibus`
   against, and the client that measures both, in plain C on libibus. Apart from
   kbhost-floor so that libibus and GLib do not load into that floor's processes
   (its memory and spawn figures stay those of a bare process).

     kbhost-floor-ibus engine [--hop] [--ibus]
         An IBus engine, `kbhost-floor`, that commits the character of every key
         pressed and takes its release: the least an engine can do per key. With
         --ibus (ibus-daemon started it from a component file) it takes the
         component's bus name; without, it registers the component at run time.
         With --hop it is `kbhost-floor-hop`: before each commit it makes one
         round trip (41 bytes out, 24 back, as a kbhost tap's frames; the reply
         polled for 0.2 ms with yields, then waited for, as kbhost's engine does)
         over a socketpair to a child process it forked at start, which answers
         and does nothing else: the least the design of one process per keyboard
         can cost, with no Swift, no sandbox and no keyboard.
         KBHOST_FLOOR_HOP_WORK=B,R,C (microseconds) makes the hop's engine busy B µs
         of CPU before its request and R µs after the reply, and its child C µs
         before answering: how much CPU on a key's path a ratio stands for (README,
         "Measuring").

     kbhost-floor-ibus client
         One input context on the ibus-daemon at IBUS_ADDRESS, focused, with the
         capabilities of a plain text field (no surrounding text). Commands on
         stdin, one a line; one answer line each on stdout:
           engine NAME        choose the engine (unless it is the one chosen); waits
                              until the daemon reports it → "ok"
           keys N WARMUP [K]  WARMUP untimed keys, then N timed ones, each a press
                              and a release of keyval K (default '1'): the time
                              from sending the press until its commit arrives
                              → "samples NS NS …" (nanoseconds)
           quit
         Any failure → "error MESSAGE", and the client exits 1. With KBHOST_BENCH_DEBUG
         set, it logs commands, presses and commits on stderr (kbhost-bench then keeps
         its IBus folder, with that log, in the temporary directory). */
#include <sched.h>
#include <ibus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- the floor engine ---- */

typedef struct { IBusEngine parent; } FloorEngine;
typedef struct { IBusEngineClass parent; } FloorEngineClass;
G_DEFINE_TYPE(FloorEngine, floor_engine, IBUS_TYPE_ENGINE)

/* KBHOST_FLOOR_HOP_WORK: busy CPU, µs, before the request, after the reply, in the child. */
static long work_before, work_after_reply, work_child;

static void busy(long microseconds) {
    if (microseconds <= 0) return;
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    while ((t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000 < microseconds);
}

/* --hop: the socket to the child that answers every request. */
static int hop = -1;

/* The child of --hop: one reply per read, until the engine goes. */
static void answer_hops(int fd) {
    char request[256], reply[24] = {0};
    for (;;) {
        ssize_t n = read(fd, request, sizeof request);
        if (n > 0) busy(work_child);
        if (n <= 0 || send(fd, reply, sizeof reply, MSG_NOSIGNAL) != (ssize_t)sizeof reply) _exit(0);
        sched_yield();  /* hands the CPU to the engine waiting for this reply, as kbhost's worker does */
    }
}

/* As kbhost's host waits for a reply in front of a person (ExtensionProcess's
   pollForReplyMicroseconds): polled for 0.2 ms, yielding between looks, then waited for. */
static int hop_round_trip(void) {
    char request[41] = {0}, reply[64];
    if (send(hop, request, sizeof request, MSG_NOSIGNAL) != (ssize_t)sizeof request) return 0;
    struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        ssize_t n = recv(hop, reply, sizeof reply, MSG_DONTWAIT);
        if (n > 0) return 1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) > 200000) break;
        sched_yield();
    }
    return recv(hop, reply, sizeof reply, 0) > 0;
}

static gboolean floor_process_key(IBusEngine *engine, guint keyval, guint keycode, guint state) {
    (void)keycode;
    gunichar c = ibus_keyval_to_unicode(keyval);
    if (c < 0x20 || c == 0x7f || (state & (IBUS_CONTROL_MASK | IBUS_MOD1_MASK | IBUS_SUPER_MASK))) return FALSE;
    if (state & IBUS_RELEASE_MASK) return TRUE;
    if (hop >= 0) {
        busy(work_before);
        if (!hop_round_trip()) return FALSE;
        busy(work_after_reply);
    }
    char text[8] = {0};
    g_unichar_to_utf8(c, text);
    ibus_engine_commit_text(engine, ibus_text_new_from_string(text));
    sched_yield();  /* hands the CPU to GDBus's thread, as kbhost's engine does after a key's edits */
    return TRUE;
}

static void floor_engine_class_init(FloorEngineClass *klass) {
    IBUS_ENGINE_CLASS(klass)->process_key_event = floor_process_key;
}
static void floor_engine_init(FloorEngine *self) { (void)self; }

static void quit_on_disconnect(IBusBus *bus, gpointer data) {
    (void)bus; (void)data;
    ibus_quit();
}

static int run_engine(int by_daemon, int with_hop) {
    const char *name = with_hop ? "kbhost-floor-hop" : "kbhost-floor";
    const char *bus_name = with_hop ? "org.freedesktop.IBus.KbhostFloorHop" : "org.freedesktop.IBus.KbhostFloor";
    if (with_hop) {
        const char *work = getenv("KBHOST_FLOOR_HOP_WORK");
        if (work && sscanf(work, "%ld,%ld,%ld", &work_before, &work_after_reply, &work_child) != 3) {
            fprintf(stderr, "kbhost-floor-ibus: KBHOST_FLOOR_HOP_WORK is B,R,C (microseconds), not %s\n", work);
            return 2;
        }
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return 1;
        pid_t child = fork();
        if (child < 0) return 1;
        if (child == 0) {
            close(pair[0]);
            answer_hops(pair[1]);
        }
        close(pair[1]);
        hop = pair[0];
    }
    ibus_init();
    IBusBus *bus = ibus_bus_new();
    if (!ibus_bus_is_connected(bus)) {
        fprintf(stderr, "kbhost-floor-ibus: no ibus-daemon (IBUS_ADDRESS)\n");
        return 1;
    }
    g_signal_connect(bus, "disconnected", G_CALLBACK(quit_on_disconnect), NULL);
    IBusFactory *factory = ibus_factory_new(ibus_bus_get_connection(bus));
    ibus_factory_add_engine(factory, name, floor_engine_get_type());
    if (by_daemon) {
        if (ibus_bus_request_name(bus, bus_name, 0) == 0) {
            fprintf(stderr, "kbhost-floor-ibus: no bus name\n");
            return 1;
        }
    } else {
        IBusComponent *component = ibus_component_new(bus_name, "kbhost's IBus floor", "1", "MIT", "kbhost", "", "", "kbhost");
        ibus_component_add_engine(component, ibus_engine_desc_new(name, "kbhost floor", "commits every key",
                                                                  "other", "MIT", "kbhost", "", "default"));
        if (!ibus_bus_register_component(bus, component)) {
            fprintf(stderr, "kbhost-floor-ibus: the daemon refused the component\n");
            return 1;
        }
    }
    ibus_main();
    return 0;
}

/* ---- the client ---- */

static IBusInputContext *context;
static int commits, replies, failed, unhandled;
/* KBHOST_BENCH_DEBUG set: commands, presses and commits logged on stderr, with times (µs). */
static int debug;

static gint64 now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (gint64)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void on_commit(IBusInputContext *ic, IBusText *text, gpointer data) {
    (void)ic; (void)data;
    if (debug) fprintf(stderr, "client %lld commit %s\n", (long long)g_get_monotonic_time(), ibus_text_get_text(text));
    commits++;
}

static void on_reply(GObject *source, GAsyncResult *result, gpointer data) {
    (void)data;
    GError *error = NULL;
    gboolean handled = ibus_input_context_process_key_event_async_finish(IBUS_INPUT_CONTEXT(source), result, &error);
    if (error) {
        failed = 1;
        g_error_free(error);
    } else if (!handled) {
        unhandled++;
    }
    replies++;
}

/* Keeps the blocking loop iteration waking up, so that waits can time out. */
static gboolean tick(gpointer data) { (void)data; return G_SOURCE_CONTINUE; }

/* Iterates the main loop until *counter reaches target; 0 on time-out or a failed call. */
static int wait_for(const int *counter, int target, gint64 deadline) {
    while (*counter < target) {
        if (failed || now_ns() > deadline) return 0;
        g_main_context_iteration(NULL, TRUE);
    }
    return !failed;
}

/* One key: press, its commit and its reply, then the release and its reply. The press → commit time, or -1. */
static gint64 key(guint keyval, guint keycode) {
    int c = commits, r = replies;
    gint64 deadline = now_ns() + 5 * (gint64)1000000000;
    gint64 start = now_ns();
    if (debug) fprintf(stderr, "client %lld press\n", (long long)g_get_monotonic_time());
    ibus_input_context_process_key_event_async(context, keyval, keycode, 0, -1, NULL, on_reply, NULL);
    if (!wait_for(&commits, c + 1, deadline)) return -1;
    gint64 elapsed = now_ns() - start;
    if (!wait_for(&replies, r + 1, deadline)) return -1;
    ibus_input_context_process_key_event_async(context, keyval, keycode, IBUS_RELEASE_MASK, -1, NULL, on_reply, NULL);
    if (!wait_for(&replies, r + 2, deadline)) return -1;
    return elapsed;
}

static int current_engine_is(const char *name) {
    IBusEngineDesc *desc = ibus_input_context_get_engine(context);
    int same = desc && strcmp(ibus_engine_desc_get_name(desc), name) == 0;
    if (desc) g_object_unref(desc);
    return same;
}

/* Choosing the engine the context has already is a no-op here: ibus-daemon would
   replace it with a new instance of itself, and keys sent meanwhile reach the old
   one, which takes them while its commits are dropped. */
static int set_engine(const char *name) {
    if (current_engine_is(name)) return 1;
    ibus_input_context_set_engine(context, name);
    gint64 deadline = now_ns() + 30 * (gint64)1000000000;
    while (now_ns() < deadline) {
        if (current_engine_is(name)) return 1;
        gint64 pause = now_ns() + 10000000;
        while (now_ns() < pause) g_main_context_iteration(NULL, TRUE);
    }
    return 0;
}

static int fail(const char *message) {
    printf("error %s\n", message);
    fflush(stdout);
    return 1;
}

static int run_client(void) {
    debug = getenv("KBHOST_BENCH_DEBUG") != NULL;
    ibus_init();
    IBusBus *bus = ibus_bus_new();
    if (!ibus_bus_is_connected(bus)) return fail("no ibus-daemon at IBUS_ADDRESS");
    context = ibus_bus_create_input_context(bus, "kbhost-floor-ibus client");
    if (!context) return fail("the daemon created no input context");
    g_signal_connect(context, "commit-text", G_CALLBACK(on_commit), NULL);
    ibus_input_context_set_capabilities(context, IBUS_CAP_PREEDIT_TEXT | IBUS_CAP_FOCUS | IBUS_CAP_LOOKUP_TABLE
                                                 | IBUS_CAP_AUXILIARY_TEXT);
    /* Focus first: the daemon gives the engine chosen next to the focused context. */
    ibus_input_context_focus_in(context);
    g_timeout_add(50, tick, NULL);

    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (debug) fprintf(stderr, "client %lld command %s\n", (long long)g_get_monotonic_time(), line);
        if (strncmp(line, "engine ", 7) == 0) {
            if (!set_engine(line + 7)) return fail("the daemon did not switch to the engine");
            printf("ok\n");
        } else if (strncmp(line, "keys ", 5) == 0) {
            long n = 0, warmup = 0, keyval = '1';
            if (sscanf(line + 5, "%ld %ld %li", &n, &warmup, &keyval) < 2 || n <= 0 || warmup < 0)
                return fail("keys N WARMUP [KEYVAL]");
            guint keycode = keyval >= '1' && keyval <= '9' ? (guint)(keyval - '1' + 2) : 0;  /* evdev KEY_1 … */
            gint64 *samples = g_new(gint64, n);
            for (long i = 0; i < warmup + n; i++) {
                int c = commits, r = replies, u = unhandled;
                gint64 t = key((guint)keyval, keycode);
                if (t < 0) {
                    char message[200];
                    snprintf(message, sizeof message, "key %ld of %ld: %s within 5 s", i + 1, warmup + n,
                             failed ? "the call failed" : unhandled > u ? "the engine did not take the key"
                             : commits == c ? (replies == r ? "no commit and no reply" : "no commit")
                             : "no reply");
                    return fail(message);
                }
                if (i >= warmup) samples[i - warmup] = t;
            }
            fputs("samples", stdout);
            for (long i = 0; i < n; i++) printf(" %lld", (long long)samples[i]);
            putchar('\n');
            g_free(samples);
        } else if (strcmp(line, "quit") == 0) {
            break;
        } else {
            return fail("unknown command");
        }
        fflush(stdout);
    }
    ibus_input_context_focus_out(context);
    g_object_unref(context);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "engine") == 0) {
        int by_daemon = 0, with_hop = 0;
        for (int i = 2; i < argc; i++) {
            if (strcmp(argv[i], "--ibus") == 0) by_daemon = 1;
            else if (strcmp(argv[i], "--hop") == 0) with_hop = 1;
            else return fprintf(stderr, "usage: kbhost-floor-ibus engine [--hop] [--ibus]\n"), 2;
        }
        return run_engine(by_daemon, with_hop);
    }
    if (argc >= 2 && strcmp(argv[1], "client") == 0) return run_client();
    fprintf(stderr, "usage: kbhost-floor-ibus engine [--hop] [--ibus] | client\n");
    return 2;
}
