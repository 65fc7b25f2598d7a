/* FarCursorMove: a keyboard that moves the cursor across everything it typed, back and
   forth, in one action ("far"), and one character ("near", the control). For the IBus
   engine, which replays a move as Left/Right keys: one action must not become millions.
   "arm" makes it do the same 100 times as it disappears, each move an edit of its own,
   outside any action of the app's (fifteenth red team). */
#include <kbhost_keyboard.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor_keyboard {
    const kbh_host_v1 *host;
    int armed;
} cursor_keyboard;

static void *cursor_create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    cursor_keyboard *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static void cursor_did_load(cursor_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static const kbh_key_spec_v1 keys[] = {
        {.label = "f", .action = "far"},
        {.label = "n", .action = "near"},
        {.label = "d", .action = "arm"},
        {.label = "w", .action = "wobble"},
    };
    kbh_row_spec_v1 rows[] = {{keys, 4}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}

static void cursor_far(cursor_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static char text[3001];
    memset(text, 'x', 3000);
    self->host->insert_text(self->host->ctx, text);
    for (int i = 0; i < 3; i++) {
        self->host->adjust_text_position(self->host->ctx, -3000);
        self->host->adjust_text_position(self->host->ctx, 3000);
    }
}

static void cursor_near(cursor_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, "ab");
    self->host->adjust_text_position(self->host->ctx, -1);
}

/* "w": "PAYLOAD", 998 moves of one character back and forth, and a Return: one action that takes
   the engine a while to send (seventeenth red team). */
static void cursor_wobble(cursor_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, "PAYLOAD");
    for (int i = 0; i < 499; i++) {
        self->host->adjust_text_position(self->host->ctx, -1);
        self->host->adjust_text_position(self->host->ctx, 1);
    }
    self->host->insert_text(self->host->ctx, "\n");
}

static void cursor_arm(cursor_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->armed = 1;
}

static void cursor_will_disappear(cursor_keyboard *self, const kbh_selector_v1 *cmd, bool animated) {
    (void)cmd; (void)animated;
    if (!self->armed) return;
    static char text[3001];
    memset(text, 'x', 3000);
    self->host->insert_text(self->host->ctx, text);
    for (int i = 0; i < 100; i++) {
        self->host->adjust_text_position(self->host->ctx, -3000);
        self->host->adjust_text_position(self->host->ctx, 3000);
    }
}

static const kbh_selector_v1 FarCursorMove_selectors[] = {
    {"viewDidLoad", "v@:", (void *)cursor_did_load, NULL},
    {"far", "v@:", (void *)cursor_far, NULL},
    {"near", "v@:", (void *)cursor_near, NULL},
    {"arm", "v@:", (void *)cursor_arm, NULL},
    {"wobble", "v@:", (void *)cursor_wobble, NULL},
    {"viewWillDisappear:", "v@:B", (void *)cursor_will_disappear, NULL},
};

const kbh_class_v1 FarCursorMove_class = {
    .name = "FarCursorMove", .create = cursor_create, .selectors = FarCursorMove_selectors, .selector_count = 6,
};

/* SlowKey: "s" takes 0.7 s (under every deadline), then types "PAYLOAD"; "b" types "b" at once.
   Keys queued behind slow ones were handled after the user moved to another field, and their
   text landed there, a password field included (fifteenth red team, F2). */
#include <time.h>

static void slow_did_load(cursor_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static const kbh_key_spec_v1 keys[] = {
        {.label = "s", .action = "slow"},
        {.label = "b", .action = "quick"},
    };
    kbh_row_spec_v1 rows[] = {{keys, 2}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}

static void slow_key(cursor_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    struct timespec pause = {0, 700 * 1000 * 1000};
    nanosleep(&pause, NULL);
    self->host->insert_text(self->host->ctx, "PAYLOAD");
}

static void quick_key(cursor_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, "b");
}

static const kbh_selector_v1 SlowKey_selectors[] = {
    {"viewDidLoad", "v@:", (void *)slow_did_load, NULL},
    {"slow", "v@:", (void *)slow_key, NULL},
    {"quick", "v@:", (void *)quick_key, NULL},
};

const kbh_class_v1 SlowKey_class = {
    .name = "SlowKey", .create = cursor_create, .selectors = SlowKey_selectors, .selector_count = 3,
};
