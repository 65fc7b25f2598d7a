/* MarkupLabels: a keyboard whose labels, identifiers and display line look like
   markup and hold control characters, for the tests that draw a keyboard
   (kbhost preview): every one of them must stay text in the SVG. */
#include <kbhost_keyboard.h>
#include <stdlib.h>

typedef struct markup_keyboard {
    const kbh_host_v1 *host;
} markup_keyboard;

static void *markup_create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    markup_keyboard *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static void markup_did_load(markup_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static const kbh_key_spec_v1 bar[] = {
        {.identifier = "candidate.0", .label = "]]><!--", .role = KBH_ROLE_FUNCTION, .action = "type:"},
        {.identifier = "candidate.1", .label = "日本", .role = KBH_ROLE_FUNCTION, .action = "type:"},
    };
    static const kbh_key_spec_v1 keys[] = {
        {.identifier = "\"><script>", .label = "<&>", .action = "type:"},
        {.label = "\"'", .action = "type:"},
        {.label = "&amp;", .width = 2, .action = "type:"},
        {.label = "", .width = 1},  /* a spacer: not drawn */
        {.label = "\x1b[2J\x07", .role = KBH_ROLE_FUNCTION, .width = 1.5, .action = "type:"},
    };
    kbh_row_spec_v1 rows[] = {{bar, 2}, {keys, 5}};
    kbh_layout_v1 layout = {.display = "</text></svg><script>alert('x')</script> & \"done\"", .rows = rows, .row_count = 2};
    self->host->set_layout(self->host->ctx, &layout);
}

static void markup_type(markup_keyboard *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, key->label);
}

static const kbh_selector_v1 MarkupLabels_selectors[] = {
    {"viewDidLoad", "v@:", (void *)markup_did_load, NULL},
    {"type:", "v@:@", (void *)markup_type, NULL},
};

const kbh_class_v1 MarkupLabels_class = {
    .name = "MarkupLabels", .create = markup_create, .selectors = MarkupLabels_selectors, .selector_count = 2,
};
