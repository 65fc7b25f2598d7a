/* EditsInLifeCycle: a keyboard that types without a key, whenever it appears or
   disappears, and leaves marked text behind, as a hostile keyboard may. For the
   IBus tests: none of it may reach a password field, not even while a field
   turns into one or while the engine does not know yet what the field is. Its
   candidate's label and display line hold control characters, for the panel. */
#include <kbhost_keyboard.h>
#include <stdlib.h>

typedef struct lifecycle_keyboard {
    const kbh_host_v1 *host;
} lifecycle_keyboard;

static void *lifecycle_create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    lifecycle_keyboard *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static void lifecycle_did_load(lifecycle_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static const kbh_key_spec_v1 keys[] = {
        {.label = "a", .action = "type:"},
        {.label = "b", .action = "type:"},
    };
    /* A candidate whose label holds an OSC 52 clipboard write, a bidi override and a newline. */
    static const kbh_key_spec_v1 bar[] = {
        {.identifier = "candidate.0", .label = "\x1b]52;c;ZXZpbA==\x07\xe2\x80\xae" "evil\nline", .role = KBH_ROLE_FUNCTION, .action = "type:"},
    };
    kbh_row_spec_v1 rows[] = {{bar, 1}, {keys, 2}};
    kbh_layout_v1 layout = {.display = "display\x1b[2J", .rows = rows, .row_count = 2};
    self->host->set_layout(self->host->ctx, &layout);
}

static void lifecycle_type(lifecycle_keyboard *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, key->label);
}

static void lifecycle_appear(lifecycle_keyboard *self, const kbh_selector_v1 *cmd, bool animated) {
    (void)cmd; (void)animated;
    self->host->insert_text(self->host->ctx, "<appear>");
}

static void lifecycle_disappear(lifecycle_keyboard *self, const kbh_selector_v1 *cmd, bool animated) {
    (void)cmd; (void)animated;
    self->host->insert_text(self->host->ctx, "<disappear>");
    self->host->set_marked_text(self->host->ctx, "<marked>", 8, 0);
}

static const kbh_selector_v1 EditsInLifeCycle_selectors[] = {
    {"viewDidLoad", "v@:", (void *)lifecycle_did_load, NULL},
    {"type:", "v@:@", (void *)lifecycle_type, NULL},
    {"viewDidAppear:", "v@:B", (void *)lifecycle_appear, NULL},
    {"viewWillDisappear:", "v@:B", (void *)lifecycle_disappear, NULL},
};

const kbh_class_v1 EditsInLifeCycle_class = {
    .name = "EditsInLifeCycle", .create = lifecycle_create, .selectors = EditsInLifeCycle_selectors, .selector_count = 4,
};

/* AdvanceInLifeCycle: asks for the next keyboard as it appears and as it disappears, as a hostile
   keyboard may (red team 5: the front end re-entered its switch each time, until its stack
   overflowed); its "1" types, its "G" asks for the next keyboard as a globe key does. */
static void advance_now(lifecycle_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    self->host->advance_to_next_input_mode(self->host->ctx);
}

static void advance_in_phase(lifecycle_keyboard *self, const kbh_selector_v1 *cmd, bool animated) {
    (void)animated;
    advance_now(self, cmd);
}

static void advance_did_load(lifecycle_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static const kbh_key_spec_v1 keys[] = {
        {.label = "1", .action = "type:"},
        {.label = "G", .role = KBH_ROLE_GLOBE, .action = "advance"},
    };
    kbh_row_spec_v1 rows[] = {{keys, 2}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}

static const kbh_selector_v1 AdvanceInLifeCycle_selectors[] = {
    {"viewDidLoad", "v@:", (void *)advance_did_load, NULL},
    {"type:", "v@:@", (void *)lifecycle_type, NULL},
    {"advance", "v@:", (void *)advance_now, NULL},
    {"viewDidAppear:", "v@:B", (void *)advance_in_phase, NULL},
    {"viewWillDisappear:", "v@:B", (void *)advance_in_phase, NULL},
};

const kbh_class_v1 AdvanceInLifeCycle_class = {
    .name = "AdvanceInLifeCycle", .create = lifecycle_create, .selectors = AdvanceInLifeCycle_selectors, .selector_count = 5,
};
