/* Keyboards that fail on purpose, one class per fault, for tests and stress
   runs. Each has a working digit layout until its fault fires. */
#define _GNU_SOURCE
#include <kbhost_keyboard.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fault {
    const kbh_host_v1 *host;
} fault;

static void hang(void) {
    for (;;) pause();
}

static void layout_with(fault *self, const char *extra_action) {
    static kbh_key_spec_v1 keys[4];
    keys[0] = (kbh_key_spec_v1){.label = "1", .action = "insertLabel:"};
    keys[1] = (kbh_key_spec_v1){.label = "boom", .role = KBH_ROLE_FUNCTION, .action = "boom"};
    keys[2] = (kbh_key_spec_v1){.label = "x", .action = extra_action};
    /* The fault again, on a key a real keyboard can type (the IBus tests press "!"). */
    keys[3] = (kbh_key_spec_v1){.label = "!", .action = "boom"};
    kbh_row_spec_v1 rows[] = {{keys, 4}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}

static void *create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    if (strcmp(cls->name, "HangInCreate") == 0) hang();
    fault *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static void did_load(fault *self, const kbh_selector_v1 *cmd) { (void)cmd; layout_with(self, "insertLabel:"); }
static void did_load_crash(fault *self, const kbh_selector_v1 *cmd) { (void)self; (void)cmd; abort(); }
static void did_load_hang(fault *self, const kbh_selector_v1 *cmd) { (void)self; (void)cmd; hang(); }
static void did_load_bad_layout(fault *self, const kbh_selector_v1 *cmd) { (void)cmd; layout_with(self, "noSuchAction:"); }
static void did_load_int(fault *self, const kbh_selector_v1 *cmd, int32_t n) { (void)self; (void)cmd; (void)n; }

static void insert_label(fault *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, key->label);
}
static void boom_crash(fault *self, const kbh_selector_v1 *cmd) {
    (void)self; (void)cmd;
    volatile int *nowhere = NULL;
    *nowhere = 1; /* a real segmentation fault */
}
static void boom_hang(fault *self, const kbh_selector_v1 *cmd) { (void)self; (void)cmd; hang(); }
static void boom_exit(fault *self, const kbh_selector_v1 *cmd) { (void)self; (void)cmd; _exit(3); }

/* Write straight onto the worker's channel (fd 3), as a hostile plugin could. */
static void boom_oversized_frame(fault *self, const kbh_selector_v1 *cmd) {
    (void)self; (void)cmd;
    static const unsigned char header[] = {0xff, 0xff, 0xff, 0x7f};
    ssize_t ignored = write(3, header, sizeof header);
    (void)ignored;
    hang();
}
static void boom_garbage_frame(fault *self, const kbh_selector_v1 *cmd) {
    (void)self; (void)cmd;
    static const unsigned char frame[] = {5, 0, 0, 0, 0xee, 0xee, 0xee, 0xee, 0xee};
    ssize_t ignored = write(3, frame, sizeof frame);
    (void)ignored;
    hang();
}

/* Memory faults, for the governor. Every page is written through a volatile
   pointer and the block is published, so no optimizer can drop it. */
static char *volatile leaked;
static void touch(char *p, size_t size) {
    volatile char *v = p;
    for (size_t i = 0; i < size; i += 4096) v[i] = 1;
    leaked = p;
}
static void boom_spike(fault *self, const kbh_selector_v1 *cmd) {
    (void)self; (void)cmd;
    size_t size = 200u << 20;
    char *p = malloc(size);
    if (p) touch(p, size);
    hang(); /* hold it */
}
static void boom_leak(fault *self, const kbh_selector_v1 *cmd) {
    size_t size = 4u << 20; /* 4 MiB a tap, never freed */
    char *p = malloc(size);
    if (p) touch(p, size);
    self->host->insert_text(self->host->ctx, "+");
    (void)cmd;
}
static void boom_shared_memory(fault *self, const kbh_selector_v1 *cmd) {
    (void)self; (void)cmd;
    size_t size = 200u << 20; /* shared memory: invisible to RLIMIT_DATA */
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;  /* the sandbox closes it (EPERM, said in its log): nothing happens */
    touch(p, size);
    hang();
}

/* Forks a child that keeps the channel open, then exits: no end of file ever comes. */
static void boom_fork_exit(fault *self, const kbh_selector_v1 *cmd) {
    (void)self; (void)cmd;
    if (fork() == 0) hang();
    _exit(3);
}

/* "x" crashes (a key a terminal can type); "m" composes marked text. */
static void did_load_typed(fault *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static kbh_key_spec_v1 keys[3];
    keys[0] = (kbh_key_spec_v1){.label = "1", .action = "insertLabel:"};
    keys[1] = (kbh_key_spec_v1){.label = "x", .action = "boom"};
    keys[2] = (kbh_key_spec_v1){.label = "m", .action = "compose"};
    kbh_row_spec_v1 rows[] = {{keys, 3}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}
static void compose(fault *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->set_marked_text(self->host->ctx, "かな", 2, 0);
}

/* Starts as many threads as it can (each sleeps forever). */
#include <pthread.h>
static void *sleeper(void *arg) { (void)arg; hang(); return NULL; }
static void boom_threads(fault *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    int started = 0;
    for (int i = 0; i < 4000; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, sleeper, NULL) != 0) break;
        started++;
    }
    self->host->insert_text(self->host->ctx, started > 0 ? "T" : "t");
}

/* Floods the host: 300,000 insertText calls (a reply of about 1.8 MB) in one action. */
static void boom_flood(fault *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    for (int i = 0; i < 300000; i++) self->host->insert_text(self->host->ctx, "x");
}
/* Forks a child that sleeps forever holding the channel: it must not outlive the host's kill. */
static void boom_fork(fault *self, const kbh_selector_v1 *cmd) {
    (void)self; (void)cmd;
    if (fork() == 0) hang();
    hang();
}

#define SELECTORS(cls, load_imp, boom_imp)                                    \
    static const kbh_selector_v1 cls##_selectors[] = {                         \
        {"viewDidLoad", "v@:", (void *)(load_imp), NULL},                      \
        {"insertLabel:", "v@:@", (void *)insert_label, NULL},                  \
        {"boom", "v@:", (void *)(boom_imp), NULL},                             \
    };                                                                         \
    static const kbh_class_v1 cls##_class = {                                  \
        .name = #cls, .create = create, .selectors = cls##_selectors,          \
        .selector_count = 3,                                                   \
    };

SELECTORS(CrashInViewDidLoad, did_load_crash, boom_crash)
SELECTORS(HangInViewDidLoad, did_load_hang, boom_crash)
SELECTORS(HangInCreate, did_load, boom_crash)
SELECTORS(BadLayoutAction, did_load_bad_layout, boom_crash)
SELECTORS(CrashOnKey, did_load, boom_crash)
SELECTORS(HangOnKey, did_load, boom_hang)
SELECTORS(ExitOnKey, did_load, boom_exit)
SELECTORS(OversizedFrameOnKey, did_load, boom_oversized_frame)
SELECTORS(GarbageFrameOnKey, did_load, boom_garbage_frame)
SELECTORS(SpikeOnKey, did_load, boom_spike)
SELECTORS(LeakOnKey, did_load, boom_leak)
SELECTORS(SharedMemoryOnKey, did_load, boom_shared_memory)
SELECTORS(FloodOnKey, did_load, boom_flood)
SELECTORS(ForkOnKey, did_load, boom_fork)
SELECTORS(ThreadsOnKey, did_load, boom_threads)
SELECTORS(ForkThenExitOnKey, did_load, boom_fork_exit)

/* Crashes when the document changes from outside (textWillChange:). */
static void text_will_change_crash(fault *self, const kbh_selector_v1 *cmd, void *input) {
    (void)self; (void)cmd; (void)input;
    abort();
}
static const kbh_selector_v1 CrashInTextWillChange_selectors[] = {
    {"viewDidLoad", "v@:", (void *)did_load, NULL},
    {"insertLabel:", "v@:@", (void *)insert_label, NULL},
    {"boom", "v@:", (void *)boom_crash, NULL},
    {"textWillChange:", "v@:@", (void *)text_will_change_crash, NULL},
};
static const kbh_class_v1 CrashInTextWillChange_class = {
    .name = "CrashInTextWillChange", .create = create, .selectors = CrashInTextWillChange_selectors, .selector_count = 4,
};

/* viewDidLoad declared as taking an int: refused at load, never called. */
static const kbh_selector_v1 BadEncoding_selectors[] = {
    {"viewDidLoad", "v@:i", (void *)did_load_int, NULL},
};
static const kbh_class_v1 BadEncoding_class = {
    .name = "BadEncoding", .create = create, .selectors = BadEncoding_selectors, .selector_count = 1,
};

/* ------------------------------------------------------------------ */
/* Crash and hang in every phase: CrashIn<Phase> / HangIn<Phase>, built */
/* at first use. The phase's selector carries its fault in `info`.      */
/* ------------------------------------------------------------------ */

enum { FAULT_NONE = 0, FAULT_CRASH = 1, FAULT_HANG = 2 };

static void act(const kbh_selector_v1 *cmd) {
    if (cmd->info == (void *)FAULT_CRASH) abort();
    if (cmd->info == (void *)FAULT_HANG) hang();
}
static void phase_v(fault *self, const kbh_selector_v1 *cmd) {
    act(cmd);
    if (strcmp(cmd->name, "viewDidLoad") == 0) layout_with(self, "insertLabel:");
}
static void phase_vB(fault *self, const kbh_selector_v1 *cmd, bool animated) { (void)self; (void)animated; act(cmd); }
static void phase_vAt(fault *self, const kbh_selector_v1 *cmd, void *input) { (void)self; (void)input; act(cmd); }

static const kbh_selector_v1 phase_base[] = {
    {"viewDidLoad", "v@:", (void *)phase_v, NULL},
    {"viewWillAppear:", "v@:B", (void *)phase_vB, NULL},
    {"viewDidAppear:", "v@:B", (void *)phase_vB, NULL},
    {"viewWillDisappear:", "v@:B", (void *)phase_vB, NULL},
    {"viewDidDisappear:", "v@:B", (void *)phase_vB, NULL},
    {"textWillChange:", "v@:@", (void *)phase_vAt, NULL},
    {"textDidChange:", "v@:@", (void *)phase_vAt, NULL},
    {"selectionWillChange:", "v@:@", (void *)phase_vAt, NULL},
    {"selectionDidChange:", "v@:@", (void *)phase_vAt, NULL},
    {"insertLabel:", "v@:@", (void *)insert_label, NULL},
    {"boom", "v@:", (void *)boom_crash, NULL},
};
#define PHASE_SELECTORS (sizeof phase_base / sizeof phase_base[0])
/* Phases 1…8 (viewDidLoad has its own classes above). */
static const char *const phase_names[] = {
    NULL, "ViewWillAppear", "ViewDidAppear", "ViewWillDisappear", "ViewDidDisappear",
    "TextWillChange", "TextDidChange", "SelectionWillChange", "SelectionDidChange",
};
#define PHASES 9
static kbh_class_v1 phase_classes[2 * (PHASES - 1)];

static void build_phase_classes(void) {
    static int built = 0;
    if (built) return;
    built = 1;
    for (int mode = 0; mode < 2; mode++) {
        for (int p = 1; p < PHASES; p++) {
            kbh_selector_v1 *sels = malloc(sizeof phase_base);
            memcpy(sels, phase_base, sizeof phase_base);
            sels[p].info = (void *)(intptr_t)(mode == 0 ? FAULT_CRASH : FAULT_HANG);
            char *name = malloc(64);
            strcpy(name, mode == 0 ? "CrashIn" : "HangIn");
            strcat(name, phase_names[p]);
            phase_classes[mode * (PHASES - 1) + (p - 1)] = (kbh_class_v1){
                .name = name, .create = create, .selectors = sels, .selector_count = PHASE_SELECTORS,
            };
        }
    }
}

/* Globe: asks for the next input mode, then crashes before returning. */
static void globe_then_crash(fault *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->advance_to_next_input_mode(self->host->ctx);
    abort();
}
static void did_load_globe(fault *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static kbh_key_spec_v1 keys[2];
    keys[0] = (kbh_key_spec_v1){.label = "1", .action = "insertLabel:"};
    keys[1] = (kbh_key_spec_v1){.label = "G", .role = KBH_ROLE_GLOBE, .action = "globe"};
    kbh_row_spec_v1 rows[] = {{keys, 2}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}
static const kbh_selector_v1 CrashInAdvance_selectors[] = {
    {"viewDidLoad", "v@:", (void *)did_load_globe, NULL},
    {"insertLabel:", "v@:@", (void *)insert_label, NULL},
    {"globe", "v@:", (void *)globe_then_crash, NULL},
};
static const kbh_class_v1 CrashInAdvance_class = {
    .name = "CrashInAdvance", .create = create, .selectors = CrashInAdvance_selectors, .selector_count = 3,
};

/* AccessOnKey: "a" types 1 while the keyboard has open access, 0 without (hasFullAccess, read
   at each key): what a grant granted or revoked changes, seen from the keyboard. */
static void did_load_access(fault *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static kbh_key_spec_v1 keys[1];
    keys[0] = (kbh_key_spec_v1){.label = "a", .action = "typeAccess"};
    kbh_row_spec_v1 rows[] = {{keys, 1}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}
static void type_access(fault *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, self->host->has_full_access(self->host->ctx) ? "1" : "0");
}
static const kbh_selector_v1 AccessOnKey_selectors[] = {
    {"viewDidLoad", "v@:", (void *)did_load_access, NULL},
    {"typeAccess", "v@:", (void *)type_access, NULL},
};
static const kbh_class_v1 AccessOnKey_class = {
    .name = "AccessOnKey", .create = create, .selectors = AccessOnKey_selectors, .selector_count = 2,
};

static const kbh_selector_v1 CrashOnTypedX_selectors[] = {
    {"viewDidLoad", "v@:", (void *)did_load_typed, NULL},
    {"insertLabel:", "v@:@", (void *)insert_label, NULL},
    {"boom", "v@:", (void *)boom_crash, NULL},
    {"compose", "v@:", (void *)compose, NULL},
};
static const kbh_class_v1 CrashOnTypedX_class = {
    .name = "CrashOnTypedX", .create = create, .selectors = CrashOnTypedX_selectors, .selector_count = 4,
};

extern const kbh_class_v1 CacheOnKey_class;  /* cache.c */
extern const kbh_class_v1 MarkupLabels_class;  /* markup.c */
extern const kbh_class_v1 EditsInLifeCycle_class, AdvanceInLifeCycle_class;  /* lifecycle.c */
extern const kbh_class_v1 FarCursorMove_class, SlowKey_class;  /* cursor.c */
extern const kbh_class_v1 SlowReport_class;  /* slow.c */
extern const kbh_class_v1 BigLogOnKey_class;  /* biglog.c */
extern const kbh_class_v1 ManyCandidates_class;  /* candidates.c */
extern const kbh_class_v1 RepliesAheadOnKey_class, RepliesWhileIdleOnKey_class, TinyEffectsFrameOnKey_class,
    ClickFloodOnKey_class, BigInsertOnKey_class, BigLayoutOnKey_class, BudgetLayoutOnKey_class,
    HugeLayoutOnKey_class, EditFloodOnKey_class, PasteboardFloodOnKey_class,
    HugeFailureOnKey_class;  /* wire.c */

static const kbh_class_v1 *const classes[] = {
    &CrashInViewDidLoad_class, &HangInViewDidLoad_class, &HangInCreate_class, &BadLayoutAction_class,
    &CrashOnKey_class, &HangOnKey_class, &ExitOnKey_class, &BadEncoding_class,
    &OversizedFrameOnKey_class, &GarbageFrameOnKey_class,
    &SpikeOnKey_class, &LeakOnKey_class, &SharedMemoryOnKey_class, &CrashInTextWillChange_class,
    &FloodOnKey_class, &ForkOnKey_class, &CrashInAdvance_class, &ThreadsOnKey_class, &ForkThenExitOnKey_class, &CrashOnTypedX_class,
    &CacheOnKey_class, &MarkupLabels_class, &EditsInLifeCycle_class, &FarCursorMove_class,
    &RepliesAheadOnKey_class, &RepliesWhileIdleOnKey_class, &TinyEffectsFrameOnKey_class, &ClickFloodOnKey_class,
    &BigInsertOnKey_class, &BigLayoutOnKey_class, &BudgetLayoutOnKey_class, &HugeLayoutOnKey_class,
    &BigLogOnKey_class, &ManyCandidates_class, &AdvanceInLifeCycle_class, &AccessOnKey_class,
    &EditFloodOnKey_class, &PasteboardFloodOnKey_class, &HugeFailureOnKey_class, &SlowKey_class,
    &SlowReport_class,
};

static const kbh_plugin_v1 plugin = {
    .abi_version = KBH_ABI_VERSION,
    .struct_size = sizeof(kbh_plugin_v1),
    .classes = classes,
    .class_count = sizeof classes / sizeof classes[0],
};

static const kbh_class_v1 *all_classes[sizeof classes / sizeof classes[0] + 2 * (PHASES - 1)];
static kbh_plugin_v1 full_plugin;

const kbh_plugin_v1 *kbhost_keyboard_plugin_v1(void) {
    build_phase_classes();
    size_t n = 0;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) all_classes[n++] = classes[i];
    for (size_t i = 0; i < 2 * (PHASES - 1); i++) all_classes[n++] = &phase_classes[i];
    full_plugin = plugin;
    full_plugin.classes = all_classes;
    full_plugin.class_count = (uint32_t)n;
    return &full_plugin;
}
