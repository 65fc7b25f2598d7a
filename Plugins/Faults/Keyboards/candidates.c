/* ManyCandidates: every tap of "a" types it and shows 20,000 candidates with labels of 200
   letters (found by the third red team: the IBus engine spent 1.2 s a key escaping and
   handing them all to IBus). */
#include <kbhost_keyboard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COUNT = 20000, LABEL = 200 };

static void *many_create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    return (void *)host;
}

static void many_layout(const kbh_host_v1 *host, int candidates) {
    static kbh_key_spec_v1 bar[COUNT];
    static char ids[COUNT][24];
    static char label[LABEL + 1];
    memset(label, 'c', LABEL);
    for (int i = 0; i < candidates; i++) {
        snprintf(ids[i], sizeof ids[i], "candidate.%d", i);
        bar[i] = (kbh_key_spec_v1){.identifier = ids[i], .label = label, .role = KBH_ROLE_FUNCTION, .action = "type:"};
    }
    static const kbh_key_spec_v1 keys[] = {{.label = "a", .action = "type:"}};
    kbh_row_spec_v1 rows[] = {{bar, (uint32_t)candidates}, {keys, 1}};
    kbh_layout_v1 layout = {.rows = candidates ? rows : rows + 1, .row_count = candidates ? 2 : 1};
    host->set_layout(host->ctx, &layout);
}

static void many_did_load(const kbh_host_v1 *host, const kbh_selector_v1 *cmd) {
    (void)cmd;
    many_layout(host, 0);
}

static void many_type(const kbh_host_v1 *host, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    (void)cmd;
    host->insert_text(host->ctx, "a");
    if (strcmp(key->label, "a") == 0) many_layout(host, COUNT);
}

static const kbh_selector_v1 ManyCandidates_selectors[] = {
    {"viewDidLoad", "v@:", (void *)many_did_load, NULL},
    {"type:", "v@:@", (void *)many_type, NULL},
};

const kbh_class_v1 ManyCandidates_class = {
    .name = "ManyCandidates", .create = many_create, .selectors = ManyCandidates_selectors, .selector_count = 2,
};
