/* BigLogOnKey: every tap of "1" types it and logs a line of 1 MiB (found by the third red
   team: a keyboard logging megabytes a key grew the IBus engine by 115 MB/s, since a
   long-lived front end kept a thousand events whole). */
#include <kbhost_keyboard.h>
#include <stdlib.h>
#include <string.h>

enum { LINE = 1 << 20 };

static void *biglog_create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    return (void *)host;
}

static void biglog_did_load(const kbh_host_v1 *host, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static kbh_key_spec_v1 keys[1];
    keys[0] = (kbh_key_spec_v1){.label = "1", .action = "log:"};
    kbh_row_spec_v1 rows[] = {{keys, 1}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    host->set_layout(host->ctx, &layout);
}

static void biglog_log(const kbh_host_v1 *host, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    (void)cmd;
    host->insert_text(host->ctx, key->label);
    char *line = malloc(LINE + 1);
    if (!line) return;
    memset(line, 'x', LINE);
    line[LINE] = 0;
    host->log(host->ctx, 1, line);
    free(line);
}

static const kbh_selector_v1 BigLogOnKey_selectors[] = {
    {"viewDidLoad", "v@:", (void *)biglog_did_load, NULL},
    {"log:", "v@:@", (void *)biglog_log, NULL},
};

const kbh_class_v1 BigLogOnKey_class = {
    .name = "BigLogOnKey", .create = biglog_create, .selectors = BigLogOnKey_selectors, .selector_count = 2,
};
