/* CacheOnKey: a keyboard that behaves well under memory pressure. Every tap of
   "1" types it and grows a cache by 4 MiB (touched, so it counts); a memory
   warning empties the cache, as an iOS keyboard drops its caches in
   didReceiveMemoryWarning. Under a budget it lives as long as warnings come. */
#include <kbhost_keyboard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK = 4 << 20, MAX_CHUNKS = 256 };

typedef struct cache_keyboard {
    const kbh_host_v1 *host;
    void *chunks[MAX_CHUNKS];
    int count;
} cache_keyboard;

static void *cache_create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    cache_keyboard *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static void cache_did_load(cache_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    static kbh_key_spec_v1 keys[1];
    keys[0] = (kbh_key_spec_v1){.label = "1", .action = "grow:"};
    kbh_row_spec_v1 rows[] = {{keys, 1}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}

static void cache_grow(cache_keyboard *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    (void)cmd;
    self->host->insert_text(self->host->ctx, key->label);
    if (self->count == MAX_CHUNKS) return;
    char *chunk = malloc(CHUNK);
    if (!chunk) return;
    memset(chunk, 1, CHUNK);
    self->chunks[self->count++] = chunk;
}

static void cache_memory_warning(cache_keyboard *self, const kbh_selector_v1 *cmd) {
    (void)cmd;
    char message[64];
    snprintf(message, sizeof message, "memory warning: freed %d MiB of cache", self->count * 4);
    for (int i = 0; i < self->count; i++) free(self->chunks[i]);
    self->count = 0;
    self->host->log(self->host->ctx, 1, message);
}

static const kbh_selector_v1 CacheOnKey_selectors[] = {
    {"viewDidLoad", "v@:", (void *)cache_did_load, NULL},
    {"grow:", "v@:@", (void *)cache_grow, NULL},
    {"didReceiveMemoryWarning", "v@:", (void *)cache_memory_warning, NULL},
};

const kbh_class_v1 CacheOnKey_class = {
    .name = "CacheOnKey", .create = cache_create, .selectors = CacheOnKey_selectors, .selector_count = 3,
};
