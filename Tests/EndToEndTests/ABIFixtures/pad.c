/* One C keyboard, built twice by ABICompatibilityTests: against kbhost_keyboard.h as it was
   before the input models were appended (old-header/), and against today's. Built against
   the old header it is a plain pad, as keyboards built then are; against today's it also
   uses what was appended, each behind KBH_HOST_HAS: key extras (a payload, alternates, a
   drag action), the payload read back, a drag's touch, haptic feedback. */
#include <kbhost_keyboard.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pad { const kbh_host_v1 *host; } pad;

static void say(pad *self, const char *text) { self->host->insert_text(self->host->ctx, text); }

static void did_load(pad *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static const kbh_key_spec_v1 keys[] = {
        {.identifier = "one", .label = "1", .action = "typed:event:"},
        {.identifier = "e", .label = "e", .action = "typed:event:"},
        {.identifier = "space", .label = "space", .role = KBH_ROLE_SPACE, .width = 3, .action = "typed:event:"},
    };
    kbh_row_spec_v1 rows[] = {{keys, 3}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
#ifdef KBHOST_KEYBOARD_INPUTS_H
    if (KBH_HOST_HAS(self->host, set_key_extras)) {
        static const char *const accents[] = {"é", "è"};
        kbh_key_extras_v1 one = {.struct_size = sizeof one, .payload = "uno"};
        kbh_key_extras_v1 e = {.struct_size = sizeof e, .alternates = accents, .alternate_count = 2};
        kbh_key_extras_v1 space = {.struct_size = sizeof space, .drag_action = "dragged:event:"};
        self->host->set_key_extras(self->host->ctx, "one", &one);
        self->host->set_key_extras(self->host->ctx, "e", &e);
        self->host->set_key_extras(self->host->ctx, "space", &space);
    }
#endif
}

/* v@:@@ — a tap types the label (an alternate's sender is the alternate), the payload after it. */
static void typed(pad *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key, const kbh_event_v1 *event) {
    (void)cmd;
    say(self, key->label);
#ifdef KBHOST_KEYBOARD_INPUTS_H
    if (event->kind == KBH_EVENT_ALTERNATE) say(self, "(alt)");
    const char *payload = KBH_HOST_HAS(self->host, key_payload) ? self->host->key_payload(self->host->ctx, key->identifier) : NULL;
    if (payload) { say(self, "="); say(self, payload); }
    if (KBH_HOST_HAS(self->host, play_haptic) && self->host->play_haptic(self->host->ctx, KBH_HAPTIC_LIGHT, 1.0) != 0) say(self, "!");
#else
    (void)event;
#endif
}

#ifdef KBHOST_KEYBOARD_INPUTS_H
/* v@:@@ — a drag on the space bar writes where it went, and what is under the touch. */
static void dragged(pad *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key, const kbh_event_v1 *event) {
    (void)cmd; (void)key;
    kbh_touch_v1 touch = {.struct_size = sizeof touch};
    if (event->kind != KBH_EVENT_DRAG_ENDED || !KBH_HOST_HAS(self->host, touch)) return;
    if (self->host->touch(self->host->ctx, &touch) != 0) return;
    char text[96];
    snprintf(text, sizeof text, "[dx %d under %s]", (int)touch.dx, touch.key ? touch.key : "-");
    say(self, text);
}
#endif

static void *create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    pad *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static const kbh_selector_v1 selectors[] = {
    {"viewDidLoad", "v@:", (void *)did_load, NULL},
    {"typed:event:", "v@:@@", (void *)typed, NULL},
#ifdef KBHOST_KEYBOARD_INPUTS_H
    {"dragged:event:", "v@:@@", (void *)dragged, NULL},
#endif
};

static const kbh_class_v1 pad_class = {
    .name = "PadViewController", .create = create,
    .selectors = selectors, .selector_count = sizeof selectors / sizeof selectors[0],
};
static const kbh_class_v1 *const classes[] = {&pad_class};
static const kbh_plugin_v1 plugin = {
    .abi_version = KBH_ABI_VERSION, .struct_size = sizeof(kbh_plugin_v1), .classes = classes, .class_count = 1,
};

const kbh_plugin_v1 *kbhost_keyboard_plugin_v1(void) { return &plugin; }
