/* dev.kbhost.NumberPad: a keyboard written in C against kbhost_keyboard.h
   alone. Digits, delete and globe; key actions are target-action selectors
   called by the host through libffi. */
#include <kbhost_keyboard.h>
#include <stdlib.h>

typedef struct numberpad {
    const kbh_host_v1 *host;
} numberpad;

static void set_layout(numberpad *self) {
    static const kbh_key_spec_v1 row1[] = {
        {.label = "1", .action = "insertDigit:"}, {.label = "2", .action = "insertDigit:"},
        {.label = "3", .action = "insertDigit:"},
    };
    static const kbh_key_spec_v1 row2[] = {
        {.label = "4", .action = "insertDigit:"}, {.label = "5", .action = "insertDigit:"},
        {.label = "6", .action = "insertDigit:"},
    };
    static const kbh_key_spec_v1 row3[] = {
        {.label = "7", .action = "insertDigit:"}, {.label = "8", .action = "insertDigit:"},
        {.label = "9", .action = "insertDigit:"},
    };
    static const kbh_key_spec_v1 row4_globe[] = {
        {.label = "🌐", .role = KBH_ROLE_GLOBE, .action = "nextKeyboard"},
        {.label = "0", .action = "insertDigit:"},
        {.label = "⌫", .role = KBH_ROLE_DELETE, .action = "deleteDigit:event:", .repeats = true},
    };
    static const kbh_key_spec_v1 row4[] = {
        {.label = "0", .action = "insertDigit:"},
        {.label = "⌫", .role = KBH_ROLE_DELETE, .action = "deleteDigit:event:", .repeats = true},
    };
    bool globe = self->host->needs_input_mode_switch_key(self->host->ctx);
    kbh_row_spec_v1 rows[] = {
        {row1, 3}, {row2, 3}, {row3, 3},
        {globe ? row4_globe : row4, globe ? 3 : 2},
    };
    kbh_layout_v1 layout = {.display = NULL, .rows = rows, .row_count = 4};
    self->host->set_layout(self->host->ctx, &layout);
}

/* v@: */
static void view_did_load(numberpad *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    set_layout(self);
}

/* v@:B */
static void view_will_appear(numberpad *self, const kbh_selector_v1 *cmd, bool animated) {
    (void)cmd; (void)animated;
    set_layout(self);
}

/* v@:@ — the sender key */
static void insert_digit(numberpad *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, key->label);
}

/* v@:@@ — sender and event: deletes once per tap and once per repeat. Each deletion is also a
   light tap of haptic feedback, where the host has play_haptic (appended to the table later:
   KBH_HOST_HAS) and the keyboard open access (without it, play_haptic would only say EPERM). */
static void delete_digit(numberpad *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key,
                         const kbh_event_v1 *event) {
    (void)cmd; (void)key; (void)event;
    const kbh_host_v1 *host = self->host;
    if (!host->has_text(host->ctx)) return;
    host->delete_backward(host->ctx);
    if (KBH_HOST_HAS(host, play_haptic) && host->has_full_access(host->ctx)) host->play_haptic(host->ctx, KBH_HAPTIC_LIGHT, 1.0);
}

/* v@: */
static void next_keyboard(numberpad *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->advance_to_next_input_mode(self->host->ctx);
}

static void *create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    numberpad *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static const kbh_selector_v1 selectors[] = {
    {"viewDidLoad", "v@:", (void *)view_did_load, NULL},
    {"viewWillAppear:", "v@:B", (void *)view_will_appear, NULL},
    {"insertDigit:", "v@:@", (void *)insert_digit, NULL},
    {"deleteDigit:event:", "v@:@@", (void *)delete_digit, NULL},
    {"nextKeyboard", "v@:", (void *)next_keyboard, NULL},
};

static const kbh_class_v1 numberpad_class = {
    .name = "NumberPadViewController",
    .create = create,
    .selectors = selectors,
    .selector_count = sizeof selectors / sizeof selectors[0],
};

static const kbh_class_v1 *const classes[] = {&numberpad_class};

static const kbh_plugin_v1 plugin = {
    .abi_version = KBH_ABI_VERSION,
    .struct_size = sizeof(kbh_plugin_v1),
    .classes = classes,
    .class_count = 1,
};

const kbh_plugin_v1 *kbhost_keyboard_plugin_v1(void) { return &plugin; }
