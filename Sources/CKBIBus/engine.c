/* kbhost's IBus engine, C side (see kbh_ibus.h). */
#include <malloc.h>
#include "kbh_ibus.h"
#include <ibus.h>
#include <glib-unix.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    IBusEngine parent;
    IBusLookupTable *table;
    int table_visible;
} KbhEngine;

typedef struct {
    IBusEngineClass parent;
} KbhEngineClass;

G_DEFINE_TYPE(KbhEngine, kbh_engine, IBUS_TYPE_ENGINE)

static kbh_ibus_handlers handlers;
static IBusBus *bus;
static IBusFactory *factory;

#define H(name, ...) do { if (handlers.name) handlers.name(handlers.context, __VA_ARGS__); } while (0)

static gboolean kbh_process_key(IBusEngine *engine, guint keyval, guint keycode, guint state) {
    return handlers.process_key ? handlers.process_key(handlers.context, engine, keyval, keycode, state) != 0 : FALSE;
}
static void kbh_focus_in(IBusEngine *engine) {
    IBUS_ENGINE_CLASS(kbh_engine_parent_class)->focus_in(engine);
    H(focus_in, engine);
}
static void kbh_focus_out(IBusEngine *engine) {
    H(focus_out, engine);
    IBUS_ENGINE_CLASS(kbh_engine_parent_class)->focus_out(engine);
}
static void kbh_reset(IBusEngine *engine) { H(reset, engine); }
static void kbh_enable(IBusEngine *engine) {
    IBUS_ENGINE_CLASS(kbh_engine_parent_class)->enable(engine);
    H(enable, engine);
}
static void kbh_disable(IBusEngine *engine) {
    H(disable, engine);
    IBUS_ENGINE_CLASS(kbh_engine_parent_class)->disable(engine);
}
static void kbh_set_surrounding_text(IBusEngine *engine, IBusText *text, guint cursor, guint anchor) {
    IBUS_ENGINE_CLASS(kbh_engine_parent_class)->set_surrounding_text(engine, text, cursor, anchor);
    const gchar *all = ibus_text_get_text(text);
    glong length = g_utf8_strlen(all, -1);
    /* A report of megabytes leaves GDBus's copies of it free but held by malloc: they go back
       once the app's text is small again (the next report after a large one). */
    static gboolean after_large;
    if (after_large && length < (1 << 20)) malloc_trim(0);
    after_large = length >= (1 << 20);
    guint low = (guint)MIN((glong)MIN(cursor, anchor), length), high = (guint)MIN((glong)MAX(cursor, anchor), length);
    guint from = low > KBH_IBUS_SURROUNDING_KEEP ? low - KBH_IBUS_SURROUNDING_KEEP : 0;
    guint to = (guint)MIN((glong)high + KBH_IBUS_SURROUNDING_KEEP, length);
    if (from == 0 && (glong)to == length) {
        H(surrounding, engine, all, cursor, anchor);
        return;
    }
    const gchar *start = g_utf8_offset_to_pointer(all, from);
    gchar *near = g_strndup(start, g_utf8_offset_to_pointer(start, to - from) - start);
    H(surrounding, engine, near, cursor - from, anchor - from);
    g_free(near);
}
static void kbh_set_content_type(IBusEngine *engine, guint purpose, guint hints) {
    H(content_type, engine, purpose, hints);
}
static void show_table(KbhEngine *self) {
    if (self->table_visible) ibus_engine_update_lookup_table((IBusEngine *)self, self->table, TRUE);
}
static void kbh_page_up(IBusEngine *engine) {
    KbhEngine *self = (KbhEngine *)engine;
    if (ibus_lookup_table_page_up(self->table)) show_table(self);
}
static void kbh_page_down(IBusEngine *engine) {
    KbhEngine *self = (KbhEngine *)engine;
    if (ibus_lookup_table_page_down(self->table)) show_table(self);
}
static void kbh_cursor_up(IBusEngine *engine) {
    KbhEngine *self = (KbhEngine *)engine;
    if (ibus_lookup_table_cursor_up(self->table)) show_table(self);
}
static void kbh_cursor_down(IBusEngine *engine) {
    KbhEngine *self = (KbhEngine *)engine;
    if (ibus_lookup_table_cursor_down(self->table)) show_table(self);
}
static void kbh_candidate_clicked(IBusEngine *engine, guint index, guint button, guint state) {
    (void)button; (void)state;
    H(candidate, engine, kbh_ibus_candidate_page_start(engine) + index);
}
static void kbh_destroy(IBusObject *object) {
    KbhEngine *self = (KbhEngine *)object;
    H(destroyed, object);
    g_clear_object(&self->table);
    IBUS_OBJECT_CLASS(kbh_engine_parent_class)->destroy(object);
}

static void kbh_engine_class_init(KbhEngineClass *klass) {
    IBusEngineClass *engine = IBUS_ENGINE_CLASS(klass);
    IBUS_OBJECT_CLASS(klass)->destroy = kbh_destroy;
    engine->process_key_event = kbh_process_key;
    engine->focus_in = kbh_focus_in;
    engine->focus_out = kbh_focus_out;
    engine->reset = kbh_reset;
    engine->enable = kbh_enable;
    engine->disable = kbh_disable;
    engine->set_surrounding_text = kbh_set_surrounding_text;
    engine->set_content_type = kbh_set_content_type;
    engine->page_up = kbh_page_up;
    engine->page_down = kbh_page_down;
    engine->cursor_up = kbh_cursor_up;
    engine->cursor_down = kbh_cursor_down;
    engine->candidate_clicked = kbh_candidate_clicked;
}

static void kbh_engine_init(KbhEngine *self) {
    self->table = ibus_lookup_table_new(9, 0, TRUE, FALSE);
    g_object_ref_sink(self->table);
    self->table_visible = 0;
}

static void disconnected(IBusBus *b, gpointer data) {
    (void)b; (void)data;
    ibus_quit();
}

int kbh_ibus_run(const kbh_ibus_handlers *h, const kbh_ibus_engine_info *engines, size_t count,
                 const char *component_name, const char *exec, int by_daemon, char *error, size_t error_size) {
    handlers = *h;
    ibus_init();
    bus = ibus_bus_new();
    if (!ibus_bus_is_connected(bus)) {
        snprintf(error, error_size, "no ibus-daemon to connect to (IBUS_ADDRESS is %s)",
                 g_getenv("IBUS_ADDRESS") ? g_getenv("IBUS_ADDRESS") : "not set; is ibus-daemon running?");
        return -1;
    }
    g_signal_connect(bus, "disconnected", G_CALLBACK(disconnected), NULL);
    factory = ibus_factory_new(ibus_bus_get_connection(bus));
    for (size_t i = 0; i < count; i++) ibus_factory_add_engine(factory, engines[i].name, kbh_engine_get_type());
    if (by_daemon) {
        if (ibus_bus_request_name(bus, component_name, 0) == 0) {
            snprintf(error, error_size, "ibus-daemon did not give this process the name %s", component_name);
            return -1;
        }
    } else {
        IBusComponent *component = ibus_component_new(component_name, "kbhost keyboards, each in its sandbox",
                                                      "1", "MIT", "kbhost", "", exec, "kbhost");
        for (size_t i = 0; i < count; i++) {
            IBusEngineDesc *desc = ibus_engine_desc_new_varargs(
                "name", engines[i].name, "longname", engines[i].longname, "description", engines[i].description,
                "language", engines[i].language, "license", "MIT", "author", "kbhost", "icon", "",
                "layout", "default", "symbol", engines[i].symbol, "rank", (guint)0, NULL);
            ibus_component_add_engine(component, desc);
        }
        if (!ibus_bus_register_component(bus, component)) {
            snprintf(error, error_size, "ibus-daemon refused to register the component %s", component_name);
            return -1;
        }
    }
    ibus_main();
    return 0;
}

void kbh_ibus_quit(void) { ibus_quit(); }

typedef struct { int (*callback)(void *); void *context; } kbh_call;

static gboolean call_back(gpointer data) {
    kbh_call *call = data;
    return call->callback(call->context) ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}
static gboolean fd_ready(gint fd, GIOCondition condition, gpointer data) {
    (void)fd; (void)condition;
    return call_back(data);
}

unsigned kbh_ibus_watch(int fd, int (*callback)(void *), void *context) {
    kbh_call *call = g_new(kbh_call, 1);
    call->callback = callback;
    call->context = context;
    return g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN | G_IO_HUP | G_IO_ERR, fd_ready, call, g_free);
}

unsigned kbh_ibus_timer(unsigned milliseconds, int (*callback)(void *), void *context) {
    kbh_call *call = g_new(kbh_call, 1);
    call->callback = callback;
    call->context = context;
    return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, call_back, call, g_free);
}

typedef struct { int (*callback)(void *, int); void *context; } kbh_answer;

static void round_trip_done(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    kbh_answer *answer = data;
    GError *error = NULL;
    ibus_bus_name_has_owner_async_finish(bus, result, &error);
    answer->callback(answer->context, error == NULL);
    g_clear_error(&error);
    g_free(answer);
}

void kbh_ibus_after_round_trip(int (*callback)(void *, int), void *context) {
    if (!bus) {
        callback(context, 0);
        return;
    }
    kbh_answer *answer = g_new(kbh_answer, 1);
    answer->callback = callback;
    answer->context = context;
    ibus_bus_name_has_owner_async(bus, IBUS_SERVICE_IBUS, 2000, NULL, round_trip_done, answer);
}

const char *kbh_ibus_engine_name(void *engine) { return ibus_engine_get_name(engine); }

int kbh_ibus_has_surrounding_text(void *engine) {
    return (((IBusEngine *)engine)->client_capabilities & IBUS_CAP_SURROUNDING_TEXT) != 0;
}

void kbh_ibus_request_surrounding_text(void *engine) {
    guint cursor, anchor;
    IBusText *text = NULL;
    ibus_engine_get_surrounding_text(engine, &text, &cursor, &anchor);
    if (text) g_object_unref(g_object_ref_sink(text));
}

void kbh_ibus_commit(void *engine, const char *text) {
    ibus_engine_commit_text(engine, ibus_text_new_from_string(text));
}

void kbh_ibus_preedit(void *engine, const char *text, unsigned cursor, unsigned selected) {
    if (!text[0]) {
        ibus_engine_update_preedit_text(engine, ibus_text_new_from_string(""), 0, FALSE);
        return;
    }
    IBusText *preedit = ibus_text_new_from_string(text);
    gint length = (gint)g_utf8_strlen(text, -1);
    ibus_text_append_attribute(preedit, IBUS_ATTR_TYPE_UNDERLINE, IBUS_ATTR_UNDERLINE_SINGLE, 0, length);
    if (selected > 0 && (gint)cursor < length) {
        gint end = (gint)(cursor + selected) < length ? (gint)(cursor + selected) : length;
        ibus_text_append_attribute(preedit, IBUS_ATTR_TYPE_UNDERLINE, IBUS_ATTR_UNDERLINE_DOUBLE, (gint)cursor, end);
    }
    ibus_engine_update_preedit_text_with_mode(engine, preedit, cursor, TRUE, IBUS_ENGINE_PREEDIT_COMMIT);
}

void kbh_ibus_delete_surrounding(void *engine, int offset, unsigned characters) {
    ibus_engine_delete_surrounding_text(engine, offset, characters);
}

void kbh_ibus_forward_key(void *engine, unsigned keyval, unsigned keycode, unsigned state) {
    ibus_engine_forward_key_event(engine, keyval, keycode, state);
    ibus_engine_forward_key_event(engine, keyval, keycode, state | IBUS_RELEASE_MASK);
}

void kbh_ibus_auxiliary(void *engine, const char *text) {
    if (!text[0]) ibus_engine_hide_auxiliary_text(engine);
    else ibus_engine_update_auxiliary_text(engine, ibus_text_new_from_string(text), TRUE);
}

void kbh_ibus_candidates(void *engine, const char *const *labels, size_t count) {
    KbhEngine *self = engine;
    ibus_lookup_table_clear(self->table);
    for (size_t i = 0; i < count; i++) ibus_lookup_table_append_candidate(self->table, ibus_text_new_from_string(labels[i]));
    self->table_visible = count > 0;
    if (count > 0) ibus_engine_update_lookup_table(engine, self->table, TRUE);
    else ibus_engine_hide_lookup_table(engine);
}

unsigned kbh_ibus_candidate_page_start(void *engine) {
    KbhEngine *self = engine;
    guint size = ibus_lookup_table_get_page_size(self->table);
    guint cursor = ibus_lookup_table_get_cursor_pos(self->table);
    return size ? cursor / size * size : 0;
}

unsigned kbh_ibus_keyval_to_unicode(unsigned keyval) { return ibus_keyval_to_unicode(keyval); }
