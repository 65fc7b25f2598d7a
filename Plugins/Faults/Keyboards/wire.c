/* Keyboards that test the wire's limits: some break the protocol by writing
   frames onto the worker's channel (fd 3) themselves, as a hostile plugin
   could; others are large but legal, and must travel. Each counts the calls it
   gets, which is how it knows the sequence number of the call it is in: the
   host numbers deliveries 1, 2, 3… from viewDidLoad on, one per call. */
#define _GNU_SOURCE
#include <kbhost_keyboard.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct wire_fault {
    const kbh_host_v1 *host;
    uint64_t calls;
} wire_fault;

static void *wire_create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
    (void)cls;
    wire_fault *self = calloc(1, sizeof *self);
    if (self) self->host = host;
    return self;
}

static void write_all(const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(3, p, n);
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

static size_t put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24);
    return 4;
}
static size_t put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); return 8; }

/* One frame holding WorkerMessage.done(sequence:effects:) (tag 3): no effects, or one insertText. */
static size_t done_frame(unsigned char *p, uint64_t sequence, const char *inserted) {
    size_t n = 4;
    p[n++] = 3;
    n += put64(p + n, sequence);
    if (!inserted) {
        n += put32(p + n, 0);
    } else {
        size_t length = strlen(inserted);
        n += put32(p + n, 1);
        p[n++] = 1;  /* effect: edit */
        p[n++] = 1;  /* edit: insertText */
        n += put32(p + n, (uint32_t)length);
        memcpy(p + n, inserted, length);
        n += length;
    }
    put32(p, (uint32_t)(n - 4));
    return n;
}

/* Every call counts, whatever it is. */
static void counted(wire_fault *self, const kbh_selector_v1 *cmd) { (void)cmd; self->calls++; }
static void counted_b(wire_fault *self, const kbh_selector_v1 *cmd, bool animated) { (void)animated; counted(self, cmd); }
static void counted_at(wire_fault *self, const kbh_selector_v1 *cmd, void *input) { (void)input; counted(self, cmd); }

static void wire_did_load(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    static kbh_key_spec_v1 keys[4];
    keys[0] = (kbh_key_spec_v1){.label = "1", .action = "insertLabel:"};
    keys[1] = (kbh_key_spec_v1){.label = "2", .action = "insertLabel:"};
    keys[2] = (kbh_key_spec_v1){.label = "boom", .role = KBH_ROLE_FUNCTION, .action = "boom"};
    /* The same, on a key an app can type (the IBus engine maps characters to labels). */
    keys[3] = (kbh_key_spec_v1){.label = "!", .role = KBH_ROLE_FUNCTION, .action = "boom"};
    kbh_row_spec_v1 rows[] = {{keys, 4}};
    kbh_layout_v1 layout = {.rows = rows, .row_count = 1};
    self->host->set_layout(self->host->ctx, &layout);
}
static void wire_insert_label(wire_fault *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
    counted(self, cmd);
    self->host->insert_text(self->host->ctx, key->label);
}

/* Answers this call itself (nothing done), then the next 1,000 calls ahead of
   time, each typing "F", all in one write before the worker's own reply. */
static void boom_replies_ahead(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    enum { AHEAD = 1000 };
    unsigned char *frames = malloc((AHEAD + 1) * 32);
    if (!frames) return;
    size_t n = done_frame(frames, self->calls, NULL);
    for (uint64_t i = 1; i <= AHEAD; i++) n += done_frame(frames + n, self->calls + i, "F");
    write_all(frames, n);
    free(frames);
}

/* Answers this call as the worker does, then, from a thread, 100 ms later, while
   no call is outstanding, writes replies for the next 10 calls, each typing "F". */
static void *write_replies_later(void *arg) {
    uint64_t next = (uint64_t)(uintptr_t)arg;
    usleep(100 * 1000);
    unsigned char frames[10 * 32];
    size_t n = 0;
    for (uint64_t i = 0; i < 10; i++) n += done_frame(frames + n, next + i, "F");
    write_all(frames, n);
    return NULL;
}
static void boom_replies_while_idle(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    pthread_t thread;
    if (pthread_create(&thread, NULL, write_replies_later, (void *)(uintptr_t)(self->calls + 1)) == 0) pthread_detach(thread);
}

/* One legal 1 MiB frame answering this call with 1,048,563 one-byte effects
   (playInputClick), written before the worker's own reply. */
static void boom_tiny_effects_frame(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    const size_t payload = 1u << 20, header = 1 + 8 + 4;
    unsigned char *frame = malloc(4 + payload);
    if (!frame) return;
    put32(frame, (uint32_t)payload);
    frame[4] = 3;
    put64(frame + 5, self->calls);
    put32(frame + 13, (uint32_t)(payload - header));
    memset(frame + 4 + header, 6, payload - header);
    write_all(frame, 4 + payload);
    free(frame);
}

/* The same through the services table: a million input clicks in one call. */
static void boom_click_flood(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    for (int i = 0; i < 1000000; i++) self->host->play_input_click(self->host->ctx);
}

/* Legal and large: one insertion of 2 MiB of text ("0123456789abcdef" repeated). */
static void boom_big_insert(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    const size_t size = 2u << 20;
    char *text = malloc(size + 1);
    if (!text) return;
    for (size_t i = 0; i < size; i++) text[i] = "0123456789abcdef"[i % 16];
    text[size] = 0;
    self->host->insert_text(self->host->ctx, text);
    free(text);
}

/* Legal, but costly to the host: 32,000 one-letter insertions each undone at once, 64,000
   edits in one call that leave the text as it was. The worker's mirror is a window, so the
   keyboard's side is quick whatever the document; the host edits the whole document. */
static void boom_edit_flood(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    for (int i = 0; i < 32000; i++) {
        self->host->insert_text(self->host->ctx, "a");
        self->host->delete_backward(self->host->ctx);
    }
}

/* A failure of 4 MiB written onto the channel (WorkerMessage.failure, tag 4, kind 7: badRequest):
   a failure needs no call's number, so any plugin can end itself this way, with any text. */
static void boom_huge_failure(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    const size_t size = 4u << 20;
    unsigned char *frame = malloc(4 + 2 + 4 + size);
    if (!frame) return;
    size_t n = 4;
    frame[n++] = 4;
    frame[n++] = 7;
    n += put32(frame + n, (uint32_t)size);
    memset(frame + n, 'x', size);
    n += size;
    put32(frame, (uint32_t)(n - 4));
    write_all(frame, n);
    free(frame);
    pause();  /* the host ends the process on reading it */
}

/* Legal with open access: the pasteboard set 20,000 times in one call ("copy 0" … "copy 19999"). */
static void boom_pasteboard_flood(wire_fault *self, const kbh_selector_v1 *cmd) {
    counted(self, cmd);
    char text[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(text, sizeof text, "copy %d", i);
        self->host->pasteboard_set(self->host->ctx, text);
    }
}

/* A layout of `rows` rows of 1,000 keys, labelled k0, k1…, each typing its label. */
static void set_big_layout(wire_fault *self, int row_count) {
    enum { PER_ROW = 1000 };
    kbh_key_spec_v1 *keys = calloc((size_t)row_count * PER_ROW, sizeof *keys);
    char *labels = malloc((size_t)row_count * PER_ROW * 8);
    kbh_row_spec_v1 *rows = calloc((size_t)row_count, sizeof *rows);
    if (!keys || !labels || !rows) { free(keys); free(labels); free(rows); return; }
    for (int i = 0; i < row_count * PER_ROW; i++) {
        char *label = labels + i * 8;
        int n = i, digits = 0;
        char reversed[8];
        do { reversed[digits++] = (char)('0' + n % 10); n /= 10; } while (n > 0);
        label[0] = 'k';
        for (int d = 0; d < digits; d++) label[1 + d] = reversed[digits - 1 - d];
        label[1 + digits] = 0;
        keys[i] = (kbh_key_spec_v1){.label = label, .action = "insertLabel:"};
    }
    for (int r = 0; r < row_count; r++) rows[r] = (kbh_row_spec_v1){keys + r * PER_ROW, PER_ROW};
    kbh_layout_v1 layout = {.rows = rows, .row_count = (uint32_t)row_count};
    self->host->set_layout(self->host->ctx, &layout);
    free(keys);
    free(labels);
    free(rows);
}
/* Legal and large: 100,000 keys; 120,000 (near KBH_MAX_CALL_MEMORY); and over it, 130,000. */
static void boom_big_layout(wire_fault *self, const kbh_selector_v1 *cmd) { counted(self, cmd); set_big_layout(self, 100); }
static void boom_budget_layout(wire_fault *self, const kbh_selector_v1 *cmd) { counted(self, cmd); set_big_layout(self, 120); }
static void boom_huge_layout(wire_fault *self, const kbh_selector_v1 *cmd) { counted(self, cmd); set_big_layout(self, 130); }

#define WIRE_CLASS(cls, boom_imp)                                              \
    static const kbh_selector_v1 cls##_selectors[] = {                         \
        {"viewDidLoad", "v@:", (void *)wire_did_load, NULL},                   \
        {"viewWillAppear:", "v@:B", (void *)counted_b, NULL},                  \
        {"viewDidAppear:", "v@:B", (void *)counted_b, NULL},                   \
        {"viewWillDisappear:", "v@:B", (void *)counted_b, NULL},               \
        {"viewDidDisappear:", "v@:B", (void *)counted_b, NULL},                \
        {"textWillChange:", "v@:@", (void *)counted_at, NULL},                 \
        {"textDidChange:", "v@:@", (void *)counted_at, NULL},                  \
        {"selectionWillChange:", "v@:@", (void *)counted_at, NULL},            \
        {"selectionDidChange:", "v@:@", (void *)counted_at, NULL},             \
        {"insertLabel:", "v@:@", (void *)wire_insert_label, NULL},             \
        {"boom", "v@:", (void *)(boom_imp), NULL},                             \
    };                                                                         \
    const kbh_class_v1 cls##_class = {                                         \
        .name = #cls, .create = wire_create, .selectors = cls##_selectors,     \
        .selector_count = sizeof cls##_selectors / sizeof cls##_selectors[0],  \
    };

WIRE_CLASS(RepliesAheadOnKey, boom_replies_ahead)
WIRE_CLASS(RepliesWhileIdleOnKey, boom_replies_while_idle)
WIRE_CLASS(TinyEffectsFrameOnKey, boom_tiny_effects_frame)
WIRE_CLASS(ClickFloodOnKey, boom_click_flood)
WIRE_CLASS(BigInsertOnKey, boom_big_insert)
WIRE_CLASS(BigLayoutOnKey, boom_big_layout)
WIRE_CLASS(BudgetLayoutOnKey, boom_budget_layout)
WIRE_CLASS(HugeLayoutOnKey, boom_huge_layout)
WIRE_CLASS(EditFloodOnKey, boom_edit_flood)
WIRE_CLASS(PasteboardFloodOnKey, boom_pasteboard_flood)
WIRE_CLASS(HugeFailureOnKey, boom_huge_failure)
