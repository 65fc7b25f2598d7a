/* SlowReport: a keyboard slow outside keys, for the IBus engine's rules on what slow calls make
   (sixteenth red team, F1, F3, F4). Each key arms a behaviour in the keyboard's process, which
   outlives the field it was typed in:
   "t": the next textDidChange: takes 1.5 s, then types "PAYLOAD" and a Return;
   "o": every textDidChange: takes 1.5 s and edits nothing;
   "v": the next viewWillAppear: takes 1.5 s, then types "PAYLOAD" and a Return;
   "h": every textWillChange: and textDidChange: takes 1.3 s (one report of the app's text: 2.6 s);
   "g": every textDidChange: takes 1.2 s;
   "r": every textDidChange: takes 1.2 s, then types "PAYLOAD" and a Return;
   "j": every textDidChange: inserts 2 MiB;
   "d": sets a display line of 1 MiB of ESC characters (each shown as an escape in the panel);
   "n": takes 10 ms, then types "PAYLOAD" and a Return;
   "k": sets a display line of 201 characters, each "e" and 5,000 combining acute accents (2 MB);
   "m": takes 10 ms, then marks "かな" (the preedit);
   "u": takes 10 ms, then commits the marked text (unmarkText);
   "s": takes 0.9 s (under every deadline and strike), then types "s";
   "b": types "b". */
#include <kbhost_keyboard.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct slow_keyboard {
    const kbh_host_v1 *host;
    char mode;
} slow_keyboard;

static void *slow_create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    slow_keyboard *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static void pause_ms(long ms) {
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000 * 1000};
    nanosleep(&pause, NULL);
}

static void slow_did_load(slow_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static const kbh_key_spec_v1 keys[] = {
        {.label = "t", .action = "arm:"}, {.label = "o", .action = "arm:"}, {.label = "v", .action = "arm:"},
        {.label = "h", .action = "arm:"}, {.label = "g", .action = "arm:"}, {.label = "j", .action = "arm:"},
        {.label = "r", .action = "arm:"}, {.label = "b", .action = "quick"},
        {.label = "d", .action = "huge_display"}, {.label = "n", .action = "nap"},
        {.label = "m", .action = "mark"}, {.label = "s", .action = "drag"},
        {.label = "k", .action = "stacked_display"}, {.label = "u", .action = "unmark"},
    };
    kbh_row_spec_v1 rows[] = {{keys, 14}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}

static void slow_arm(slow_keyboard *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    (void)cmd;
    self->mode = key && key->label ? key->label[0] : 0;
}

static void slow_quick(slow_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, "b");
}

static void payload(slow_keyboard *self);

static void slow_nap(slow_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    pause_ms(10);
    payload(self);
}

static void slow_mark(slow_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    pause_ms(10);
    self->host->set_marked_text(self->host->ctx, "\xe3\x81\x8b\xe3\x81\xaa", 2, 0);
}

static void slow_unmark(slow_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    pause_ms(10);
    self->host->unmark_text(self->host->ctx);
}

static void slow_drag(slow_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    pause_ms(900);
    self->host->insert_text(self->host->ctx, "s");
}

static void slow_huge_display(slow_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    char *line = malloc((1 << 20) + 1);
    if (!line) return;
    memset(line, 0x1B, 1 << 20);
    line[1 << 20] = 0;
    self->host->set_display(self->host->ctx, line);
    free(line);
}

static void slow_stacked_display(slow_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    enum { clusters = 201, marks = 5000 };
    char *line = malloc(clusters * (1 + 2 * marks) + 1), *at = line;
    if (!line) return;
    for (int c = 0; c < clusters; c++) {
        *at++ = 'e';
        for (int m = 0; m < marks; m++) { *at++ = '\xcc'; *at++ = '\x81'; }  /* U+0301 */
    }
    *at = 0;
    self->host->set_display(self->host->ctx, line);
    free(line);
}

static void payload(slow_keyboard *self) {
    self->host->insert_text(self->host->ctx, "PAYLOAD");
    self->host->insert_text(self->host->ctx, "\n");
}

static void slow_will_change(slow_keyboard *self, const kbh_selector_v1 *cmd, void *input) {
    (void)cmd; (void)input;
    if (self->mode == 'h') pause_ms(1300);
}

static void slow_did_change(slow_keyboard *self, const kbh_selector_v1 *cmd, void *input) {
    (void)cmd; (void)input;
    switch (self->mode) {
    case 't':
        self->mode = 0;
        pause_ms(1500);
        payload(self);
        break;
    case 'o': pause_ms(1500); break;
    case 'h': pause_ms(1300); break;
    case 'g': pause_ms(1200); break;
    case 'r':
        pause_ms(1200);
        payload(self);
        break;
    case 'j': {
        static char *big;
        if (!big) {
            big = malloc((2 << 20) + 1);
            if (!big) return;
            memset(big, 'j', 2 << 20);
            big[2 << 20] = 0;
        }
        self->host->insert_text(self->host->ctx, big);
        break;
    }
    default: break;
    }
}

static void slow_will_appear(slow_keyboard *self, const kbh_selector_v1 *cmd, bool animated) {
    (void)cmd; (void)animated;
    if (self->mode != 'v') return;
    self->mode = 0;
    pause_ms(1500);
    payload(self);
}

static const kbh_selector_v1 SlowReport_selectors[] = {
    {"viewDidLoad", "v@:", (void *)slow_did_load, NULL},
    {"arm:", "v@:@", (void *)slow_arm, NULL},
    {"quick", "v@:", (void *)slow_quick, NULL},
    {"huge_display", "v@:", (void *)slow_huge_display, NULL},
    {"nap", "v@:", (void *)slow_nap, NULL},
    {"mark", "v@:", (void *)slow_mark, NULL},
    {"drag", "v@:", (void *)slow_drag, NULL},
    {"stacked_display", "v@:", (void *)slow_stacked_display, NULL},
    {"unmark", "v@:", (void *)slow_unmark, NULL},
    {"textWillChange:", "v@:@", (void *)slow_will_change, NULL},
    {"textDidChange:", "v@:@", (void *)slow_did_change, NULL},
    {"viewWillAppear:", "v@:B", (void *)slow_will_appear, NULL},
};

const kbh_class_v1 SlowReport_class = {
    .name = "SlowReport", .create = slow_create, .selectors = SlowReport_selectors, .selector_count = 12,
};
